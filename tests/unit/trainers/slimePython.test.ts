// The slime integration's Python suite (integrations/slime/tests) without the API: the contract tests
// (the fork's Sample, templates, teacher routing) run here; the API tests skip and run in
// tests/integration/batches/pythonModule.test.ts.
import { spawn } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../../..");

it("passes python3 -m unittest for integrations/slime/tests (API tests skipped)", async () => {
  const childEnv: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", PYTHONDONTWRITEBYTECODE: "1" };
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn("python3", ["-m", "unittest", "discover", "-v", "-s", "integrations/slime/tests"], {
      cwd: root,
      env: childEnv as NodeJS.ProcessEnv,
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("exit", (c) => resolve({ code: c, output: out }));
  });
  expect(code, output).toBe(0);
  expect(output).toMatch(/test_every_method_ships_a_batch_the_megatron_actor_accepts \S+ \.\.\. ok/);
});
