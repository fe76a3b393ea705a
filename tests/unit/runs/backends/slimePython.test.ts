// The slime integration's Python suite (integrations/slime/tests) without the API: the contract tests
// (the fork's Sample, templates, teacher routing) run here; the API tests skip and run in
// tests/integration/batches/pythonModule.test.ts.
import { spawn } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";
import { torchPython } from "../../../helpers/torchPython";

const root = path.resolve(import.meta.dirname, "../../../..");

function unittest(python: string, args: string[]): Promise<{ code: number | null; output: string }> {
  const childEnv: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", PYTHONDONTWRITEBYTECODE: "1" };
  return new Promise((resolve, reject) => {
    const child = spawn(python, ["-m", "unittest", "discover", "-v", "-s", "integrations/slime/tests", ...args], {
      cwd: root,
      env: childEnv as NodeJS.ProcessEnv,
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("exit", (c) => resolve({ code: c, output: out }));
  });
}

it("passes python3 -m unittest for integrations/slime/tests (API tests skipped)", async () => {
  const { code, output } = await unittest("python3", []);
  expect(code, output).toBe(0);
  expect(output).toMatch(/test_every_method_ships_a_batch_the_megatron_actor_accepts \S+ \.\.\. ok/);
});

// The top-K kernel's torch path (TP world 1, CPU) against its pure-Python twin and plain autograd, where an
// interpreter with torch exists (Debian's python3-torch); reported skipped otherwise.
const python = torchPython();
it.skipIf(!python)("runs the top-K loss's torch kernel tests with torch", async () => {
  const { code, output } = await unittest(python!, ["-p", "torch_*.py"]);
  expect(code, output).toBe(0);
  expect(output).toMatch(/test_custom_backward_equals_plain_autograd \S+ \.\.\. ok/);
  expect(output).toMatch(/test_matches_the_pure_python_twin \S+ \.\.\. ok/);
  // The hybrid (combine with the topk estimator): the hint-candidate selection and GRPO + OPD end to end.
  expect(output).toMatch(/test_matches_the_pure_python_twin \(torch_topk_loss\.CandidateSelectionTorchTest/);
  expect(output).toMatch(/test_the_hybrid_is_grpo_plus_the_selected_candidates_opd \S+ \.\.\. ok/);
});
