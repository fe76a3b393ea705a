// The layering of server/ is enforced, not hoped for: the ESLint import zones (eslint.config.mjs) reject an
// import that breaks it, and the folder graph has no cycle. The probes lint text as if it were a file at that
// path, so nothing is written into the tree.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../../..");
const eslint = new ESLint({ cwd: root });

async function restrictedImports(file: string, specifier: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import { x } from "${specifier}";\nexport const y = x;\n`, {
    filePath: path.join(root, file),
  });
  return result!.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("server/ layering", () => {
  it.each([
    ["server/engine/probe.ts", "../judge/core/vote", /engine\/ imports nothing of server\/ but platform/],
    ["server/judge/core/probe.ts", "../worker/load", /judge\/core\/ is pure/],
    ["server/judge/core/probe.ts", "../../config/experimentConfig", /judge\/core\/ is pure/],
    ["server/platform/probe.ts", "../experiments/config", /bottom layer/],
    ["server/platform/bus/probe.ts", "../../access/principal", /bottom layer/],
    ["server/training/probe.ts", "../gateway/httpErrors", /Only the web entry/],
    ["server/judge/worker/probe.ts", "../../gateway/context", /Only the web entry/],
    ["workers/judge/probe.ts", "../../server/gateway/handler", /Only the web entry/],
    ["server/proxy/probe.ts", "../../app/_lib/trpc", /never import the web app/],
  ])("%s may not import %s", async (file, specifier, message) => {
    expect(await restrictedImports(file, specifier)).toEqual([expect.stringMatching(message)]);
  });

  it.each([
    ["server/engine/probe.ts", "../platform/env"],
    ["server/engine/probe.ts", "./model"],
    ["server/judge/core/probe.ts", "../../platform/errors"],
    ["server/judge/worker/probe.ts", "../core/vote"],
    ["server/platform/bus/probe.ts", "../env"],
    ["server/gateway/probe.ts", "../experiments/service"],
    ["workers/judge/probe.ts", "../../server/judge/worker/worker"],
  ])("%s may import %s", async (file, specifier) => {
    expect(await restrictedImports(file, specifier)).toEqual([]);
  });

  it("has no folder-level import cycle", () => {
    // The shared checker prints the cycles and exits non-zero when there is one.
    const out = execFileSync(process.execPath, [path.join(root, "scripts/folder-cycles.mjs"), "server"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(out.trim().split("\n").at(-1)).toMatch(/^0 folder-level cycle\(s\)/);
  });

  it("has no import cycle between the top-level folders (tests and bench share bench/lib, never the reverse)", () => {
    const out = execFileSync(process.execPath, [path.join(root, "scripts/folder-cycles.mjs"), "."], {
      cwd: root,
      encoding: "utf8",
    });
    expect(out.trim().split("\n").at(-1)).toMatch(/^0 folder-level cycle\(s\)/);
  });
});
