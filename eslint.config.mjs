import tseslint from "typescript-eslint";
import nextPlugin from "@next/eslint-plugin-next";

export default tseslint.config(
  { ignores: ["node_modules/", ".next/", ".data/", "server/platform/db/generated/", "integrations/", "next-env.d.ts", "bench/out/", "public/"] },
  ...tseslint.configs.recommended,
  {
    plugins: { "@next/next": nextPlugin },
    rules: {
      ...nextPlugin.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
    },
  },
  {
    // Workers and server code must never import from the web app.
    files: ["server/**/*.ts", "workers/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: ["**/app/**", "../app/*"] }] },
  },
);
