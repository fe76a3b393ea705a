// The experiment form renders the GPU grid in the browser from the planner itself (server/gpu/plan.ts), so
// everything the planner imports ends up in the client bundle. This walks the real import graph from the
// client components that use it and fails on anything server-only: a Node built-in, the database or Redis
// clients, the environment, or the platform layer.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const SERVER_ONLY = [/^node:/, /^(fs|path|crypto|child_process|net|http|os)$/, /^@prisma\//, /^ioredis$/, /^pg$/];
const SERVER_ONLY_DIRS = ["server/platform/"];

/** Value imports (type-only ones are erased) of one file: `import … from "x"` and `export … from "x"`. */
function importsOf(file: string): string[] {
  const source = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of source.matchAll(/^\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+"([^"]+)"/gms)) {
    if (m[2]) continue;
    out.push(m[4]);
  }
  for (const m of source.matchAll(/^\s*import\s+"([^"]+)"/gm)) out.push(m[1]);
  return out;
}

function resolveLocal(from: string, spec: string): string {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
    try {
      readFileSync(candidate);
      return candidate;
    } catch {
      /* try the next extension */
    }
  }
  throw new Error(`cannot resolve ${spec} from ${from}`);
}

/** Every file reached through relative imports, and every package import met on the way. */
function closure(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of importsOf(file)) {
      if (spec.startsWith(".")) visit(resolveLocal(file, spec));
      else packages.add(spec);
    }
  };
  visit(path.join(ROOT, entry));
  return { files: [...files].map((f) => path.relative(ROOT, f)).sort(), packages: [...packages].sort() };
}

describe("the GPU planner is browser-safe", () => {
  for (const entry of [
    "server/gpu/plan.ts",
    "app/(console)/experiments/_components/GpuGrid.tsx",
    "server/config/experimentConfig.ts",
  ]) {
    it(`${entry} reaches no server-only module`, () => {
      const { files, packages } = closure(entry);
      expect(packages.filter((p) => SERVER_ONLY.some((re) => re.test(p)))).toEqual([]);
      expect(files.filter((f) => SERVER_ONLY_DIRS.some((d) => f.startsWith(d)))).toEqual([]);
    });
  }

  it("the planner's modules import only zod and each other", () => {
    const { files, packages } = closure("server/gpu/plan.ts");
    expect(packages).toEqual(["zod"]);
    expect(files).toEqual([
      "server/gpu/fixes.ts",
      "server/gpu/placement.ts",
      "server/gpu/plan.ts",
      "server/gpu/presets.ts",
      "server/gpu/rules.ts",
      "server/gpu/schema.ts",
    ]);
  });

  it("the walker sees a server-only import (a file of the platform layer)", () => {
    const { files } = closure("server/platform/db/runStatus.ts");
    expect(files.some((f) => f.startsWith("server/platform/"))).toBe(true);
  });
});
