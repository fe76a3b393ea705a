// The agentic demo `npm start` seeds into the GRPO demo experiment: a tool-call environment (calc, lookup) with
// a generated arithmetic task set (two-digit products and sums a small model cannot do in its head, so the
// calc tool pays), and a terminal environment with the committed Harbor examples (examples/environments/).
// Nothing is launched: the Environments page launches episodes.
import path from "node:path";
import type { Principal } from "../access/principal";
import { db } from "../platform/db/client";
import { EnvironmentCreateInput } from "./schemas";
import { createEnvironment, writeTaskSetVersion } from "./service";
import { parseTasks } from "./tasks/import";
import type { ToolCallTask } from "./tasks/spec";

const EXAMPLES = path.resolve(import.meta.dirname, "../../examples/environments");
export const DEMO_TOOLCALL_TASKS = 48;

/** Deterministic (an LCG from a fixed seed), so every install gets the same tasks and split. */
export function demoToolCallTasks(n = DEMO_TOOLCALL_TASKS): ToolCallTask[] {
  let state = 20261203;
  const next = (lo: number, hi: number) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return lo + (state % (hi - lo + 1));
  };
  return Array.from({ length: n }, (_, i) => {
    const a = next(12, 99);
    const b = next(12, 99);
    const product = i % 2 === 0;
    return {
      kind: "toolcall",
      key: `${product ? "mul" : "add"}-${i}`,
      instruction: `What is ${a} ${product ? "*" : "+"} ${b}? Use the calc tool, then give the final answer as \\boxed{number}.`,
      answer: String(product ? a * b : a + b),
      verifier: "boxed",
      tools: ["calc"],
      lookup: {},
      metadata: { demo: true },
    };
  });
}

export async function seedDemoEnvironments(actor: Principal, experimentId: string): Promise<void> {
  await createEnvironment(
    actor,
    EnvironmentCreateInput.parse({ experiment: experimentId, name: "toolcall", tools: ["calc", "lookup"] }),
  );
  await createEnvironment(
    actor,
    EnvironmentCreateInput.parse({ experiment: experimentId, name: "terminal", limits: { wallSeconds: 30 } }),
  );
  await db().$transaction(async (tx) => {
    await writeTaskSetVersion(tx, actor, {
      experimentId,
      name: "arithmetic",
      description: "Two-digit products and sums with a calc tool (demo)",
      format: "jsonl",
      splitSeed: 0,
      heldOutFraction: 0.25,
      tasks: demoToolCallTasks(),
    });
    await writeTaskSetVersion(tx, actor, {
      experimentId,
      name: "terminal-examples",
      description: "File and text tasks verified by tests/test.sh (examples/environments/terminal)",
      format: "harbor",
      splitSeed: 0,
      heldOutFraction: 0,
      tasks: parseTasks({ format: "harbor", folder: path.join(EXAMPLES, "terminal") }),
    });
  });
}
