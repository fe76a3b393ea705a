import tseslint from "typescript-eslint";
import nextPlugin from "@next/eslint-plugin-next";

// Import zones keep server/'s dependencies running one way (docs/ARCHITECTURE.md has the picture). Specifiers
// are relative, so each zone is a regex over the specifier as written in files at that depth; the layering
// test (tests/unit/layering.test.ts) lints probe files against these zones so a zone that stops biting fails.
const NO_APP = { regex: "(^|/)app(/|$)", message: "server/ and workers/ never import the web app (app/)." };
const NO_GATEWAY = {
  regex: "(^|/)gateway(/|$)",
  message: "Only the web entry (app/api) imports server/gateway/: put shared code below it.",
};
const zone = (files, patterns, ignores = []) => ({
  files,
  ignores,
  rules: { "no-restricted-imports": ["error", { patterns }] },
});

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      ".next/",
      ".data/",
      "server/platform/db/generated/",
      "integrations/",
      "next-env.d.ts",
      "bench/out/",
      "public/",
    ],
  },
  ...tseslint.configs.recommended,
  {
    plugins: { "@next/next": nextPlugin },
    rules: {
      ...nextPlugin.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
    },
  },
  // Workers and non-gateway server code: never the web app, never the gateway.
  zone(
    ["server/**/*.ts", "workers/**/*.ts"],
    [NO_APP, NO_GATEWAY],
    ["server/gateway/**", "server/platform/**", "server/engine/**", "server/judge/core/**"],
  ),
  zone(["server/gateway/**/*.ts"], [NO_APP]),
  // The foundations import nothing of server/ but each other: platform only itself; engine and the pure
  // judge core only platform (and their own folder).
  zone(
    ["server/platform/*.ts"],
    [
      NO_APP,
      { regex: "^\\.\\./", message: "server/platform/ is the bottom layer: it imports no other part of server/." },
    ],
  ),
  zone(
    ["server/platform/*/*.ts"],
    [
      NO_APP,
      {
        regex: "^\\.\\./\\.\\./",
        message: "server/platform/ is the bottom layer: it imports no other part of server/.",
      },
    ],
  ),
  zone(
    ["server/engine/*.ts"],
    [NO_APP, { regex: "^\\.\\./(?!platform/)", message: "server/engine/ imports nothing of server/ but platform/." }],
  ),
  zone(
    ["server/judge/core/*.ts"],
    [
      NO_APP,
      {
        regex: "^\\.\\./(?!\\.\\./platform/)",
        message: "server/judge/core/ is pure: it imports nothing of server/ but platform/.",
      },
    ],
  ),
);
