// The oracle run: proves each task's verifier can be satisfied and is not satisfied by doing nothing.
// A terminal task's own solution (solution/solve.sh) runs in a fresh sandbox `repeats` times and the
// verifier must pass every time; the untouched workspace must fail it. A tool-call task's answer must pass
// its verifier and a wrong answer must fail it.
import type { SandboxLimits } from "../sandbox/limits";
import type { ExecResult, SandboxProvider } from "../sandbox/provider";
import { scoreAnswer } from "./answer";
import { containerImage } from "./image";
import type { TaskSpec, TerminalTask, ToolCallTask } from "./spec";

/**
 * verified: passes with its solution, fails untouched. flaky: the solution passed some runs only.
 * impossible: the solution never passed. trivial: the untouched workspace passes (the verifier checks
 * nothing). no_solution: nothing to prove it with (only the untouched run). broken: the verifier wrote no
 * reward.
 */
export type OracleStatus = "verified" | "flaky" | "impossible" | "trivial" | "no_solution" | "broken";

export interface OracleOutcome {
  key: string;
  status: OracleStatus;
  /** The verifier's reward after each solution run. */
  solutionRewards: (number | null)[];
  /** The verifier's reward on the untouched workspace (or the wrong answer). */
  nullReward: number | null;
  errors: string[];
  commands: ExecResult[];
}

/** Harbor verifiers write 1 for success; partial credit is not a pass. */
export const passes = (reward: number | null) => reward !== null && reward >= 1 - 1e-9;

export function oracleStatus(
  hasSolution: boolean,
  solutionRewards: (number | null)[],
  nullReward: number | null,
): OracleStatus {
  if ([...solutionRewards, nullReward].every((r) => r === null)) return "broken";
  if (!hasSolution) return passes(nullReward) ? "trivial" : "no_solution";
  const passed = solutionRewards.filter(passes).length;
  if (passed === 0) return "impossible";
  if (passed < solutionRewards.length) return "flaky";
  return passes(nullReward) ? "trivial" : "verified";
}

async function runOnce(
  provider: SandboxProvider,
  task: TerminalTask,
  limits: SandboxLimits,
  withSolution: boolean,
): Promise<{ reward: number | null; error: string | null; commands: ExecResult[] }> {
  const lease = await provider.allocate({ limits, network: "none", image: containerImage(task) });
  try {
    await provider.reset(lease.id, task.workspace);
    if (withSolution && task.solution) {
      await provider.exec(lease.id, "bash /solution/solve.sh", {
        phase: "oracle",
        timeoutSeconds: task.agentTimeoutSeconds,
        readOnly: [{ at: "/solution", files: task.solution }],
      });
    }
    const r = await provider.evaluate(lease.id, {
      files: task.tests,
      command: task.verifier.command,
      timeoutSeconds: task.verifier.timeoutSeconds,
      env: task.verifier.env,
    });
    return { reward: r.reward, error: r.error, commands: provider.get(lease.id).commands.slice() };
  } finally {
    await provider.close(lease.id);
  }
}

export async function oracleTerminal(
  provider: SandboxProvider,
  task: TerminalTask,
  limits: SandboxLimits,
  repeats = 2,
): Promise<OracleOutcome> {
  const errors: string[] = [];
  const commands: ExecResult[] = [];
  const solutionRewards: (number | null)[] = [];
  if (task.solution) {
    for (let i = 0; i < repeats; i++) {
      const r = await runOnce(provider, task, limits, true);
      solutionRewards.push(r.reward);
      if (r.error) errors.push(`solution run ${i + 1}: ${r.error}`);
      commands.push(...r.commands);
    }
  }
  const untouched = await runOnce(provider, task, limits, false);
  if (untouched.error) errors.push(`untouched run: ${untouched.error}`);
  commands.push(...untouched.commands);
  const status = oracleStatus(task.solution !== null, solutionRewards, untouched.reward);
  return { key: task.key, status, solutionRewards, nullReward: untouched.reward, errors, commands };
}

export function oracleToolCall(task: ToolCallTask): OracleOutcome {
  const right = scoreAnswer(task, task.verifier === "boxed" ? `\\boxed{${task.answer}}` : task.answer);
  const wrong = scoreAnswer(task, task.verifier === "boxed" ? "\\boxed{}" : "");
  return {
    key: task.key,
    status: right !== 1 ? "impossible" : wrong === 1 ? "trivial" : "verified",
    solutionRewards: [right],
    nullReward: wrong,
    errors: [],
    commands: [],
  };
}

export async function runOracle(
  provider: SandboxProvider,
  task: TaskSpec,
  limits: SandboxLimits,
  repeats = 2,
): Promise<OracleOutcome> {
  return task.kind === "terminal" ? oracleTerminal(provider, task, limits, repeats) : oracleToolCall(task);
}
