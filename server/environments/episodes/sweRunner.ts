// Runs one episode on a swe-rl pool (`swe_env_pool_server`, which forwards to `swe_exec_server` containers):
// the container starts from the instance's image at allocate; our agent loop calls the policy through the
// recording proxy with the `bash` tool, and each call is the pool's `/exec` in the instance's checkout. As the
// fork's generate does, the agent's work is its diff: `/evaluate` applies it with the instance's eval script
// and the reward is `resolved` (1 or 0). The lease's life is onPool.ts's.
import { badRequest } from "../../platform/errors";
import { assertProtocol, assistantTurn, runOnPool, type PoolExecuteOptions, type PoolRunner } from "./onPool";
import { BASH_TOOL, callPolicy, recordStep, startEpisode, type RunEpisodeInput } from "./runner";

export type RunSweEpisodeInput = Omit<RunEpisodeInput, "agent" | "provider"> & PoolExecuteOptions;

const SYSTEM =
  "You are a software engineer fixing an issue in the repository checked out in the current directory. " +
  "Use the bash tool to inspect and edit files. When the fix is complete, answer without a tool call.";
/** The fork's generate runs each command with a 180 s timeout by default. */
const EXEC_TIMEOUT_S = 180;

const SWE: PoolRunner = {
  protocol: "swe",
  label: "swe",
  task: ({ episode, spec }) => {
    if (spec.kind !== "terminal")
      throw badRequest(`Task ${episode.task.key} is a ${spec.kind} task: swe pools run repository tasks`);
    // The instance's image and eval script (the fork's dataset columns), from the task's metadata; a Harbor
    // task's own docker_image serves as the image.
    const image = (spec.metadata.image as string | undefined) ?? spec.container?.image ?? undefined;
    const evalScript = spec.metadata.eval_script as string | undefined;
    if (!image) throw badRequest(`Task ${episode.task.key} names no image (metadata.image or docker_image)`);
    if (!evalScript) throw badRequest(`Task ${episode.task.key} has no metadata.eval_script`);
    return { key: spec.key, instruction: spec.instruction, image, evalScript };
  },
  drive: async ({ episode, spec, sessionId, lease, opts }) => {
    const messages: unknown[] = [
      { role: "system", content: SYSTEM },
      { role: "user", content: spec.instruction },
    ];
    for (let step = 0; step < episode.maxSteps; step++) {
      opts.signal?.throwIfAborted();
      const { message, turnId } = await callPolicy(opts.agent, sessionId, messages, [BASH_TOOL], null, opts.signal);
      const calls = message.tool_calls ?? [];
      messages.push(assistantTurn(message));
      const results = [];
      for (const call of calls) {
        let content: string;
        let exitCode: number | null = null;
        const command = parseCommand(call.function.arguments);
        if (call.function.name !== "bash") content = `error: unknown tool ${call.function.name}; the only tool is bash`;
        else if (command === null) content = 'error: arguments must be JSON {"command": "..."}';
        else {
          const obs = await opts.pool.step(lease.id, { kind: "command", command, timeoutSeconds: EXEC_TIMEOUT_S });
          exitCode = obs.exitCode;
          content = `exit code: ${obs.exitCode ?? "none"}\n${obs.text}`;
        }
        messages.push({ role: "tool", tool_call_id: call.id, content });
        results.push({ toolCallId: call.id, content, exitCode });
      }
      await recordStep(episode.id, step, turnId, message, results);
      if (calls.length === 0) return true;
    }
    return false;
  },
};

/** Creates, claims and runs one swe episode in this process (scripts and tests; the worker queues them). */
export async function runSweEpisode(input: RunSweEpisodeInput) {
  assertProtocol(SWE, input.pool);
  const episode = await startEpisode(input);
  return executeSweEpisode(episode.id, input);
}

/** Runs a claimed (RUNNING) episode on a swe pool to its end; returns it with its steps. */
export const executeSweEpisode = (episodeId: string, opts: PoolExecuteOptions) => runOnPool(SWE, episodeId, opts);

function parseCommand(raw: string): string | null {
  try {
    const v = JSON.parse(raw) as { command?: unknown };
    return typeof v?.command === "string" ? v.command : null;
  } catch {
    return null;
  }
}
