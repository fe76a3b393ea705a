// Runs one terminal episode on a remote pool (terminal-rl's `pool_server`): the pool holds the task (by key,
// under its DATASET_DIR) and its verifier; we hold the agent loop, so the policy is called through the
// recording proxy (each step keeps its X-Turn-Id) with the tools the pool offers, and each tool call is the
// pool's `exec_tool`. The lease's life (allocate → reset → … → evaluate → close, a lost lease failing the
// episode with nothing counted) is onPool.ts's.
import { badRequest } from "../../platform/errors";
import { assertProtocol, assistantTurn, runOnPool, type PoolExecuteOptions, type PoolRunner } from "./onPool";
import { callPolicy, recordStep, startEpisode, type RunEpisodeInput } from "./runner";

export type { PoolExecuteOptions } from "./onPool";
export type RunPoolEpisodeInput = Omit<RunEpisodeInput, "agent" | "provider"> & PoolExecuteOptions;

const TERMINAL: PoolRunner = {
  protocol: "terminal",
  label: "terminal",
  task: ({ episode, spec }) => {
    if (spec.kind !== "terminal")
      throw badRequest(`Task ${episode.task.key} is a ${spec.kind} task: pools run terminal tasks`);
    // The pool finds the task under its DATASET_DIR by `task_path` (the task's key unless its metadata says).
    return {
      key: spec.key,
      instruction: spec.instruction,
      meta: { task_path: (spec.metadata.task_path as string | undefined) ?? spec.key },
    };
  },
  drive: async ({ episode, sessionId, lease, reset, opts }) => {
    const messages: unknown[] = [{ role: "user", content: reset.instruction }];
    for (let step = 0; step < episode.maxSteps; step++) {
      opts.signal?.throwIfAborted();
      const { message, turnId } = await callPolicy(opts.agent, sessionId, messages, reset.tools, null, opts.signal);
      const calls = message.tool_calls ?? [];
      messages.push(assistantTurn(message));
      if (calls.length === 0) return true;
      const results = [];
      for (const call of calls) {
        let content: string;
        try {
          const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
          const obs = await opts.pool.step(lease.id, { kind: "tool", name: call.function.name, arguments: args });
          content = obs.text;
        } catch (e) {
          if (!(e instanceof SyntaxError)) throw e;
          content = "error: arguments must be a JSON object";
        }
        messages.push({ role: "tool", tool_call_id: call.id, content });
        results.push({ toolCallId: call.id, content });
      }
      await recordStep(episode.id, step, turnId, message, results);
    }
    return false;
  },
};

/** Creates, claims and runs one pool episode in this process (scripts and tests; the worker queues them). */
export async function runPoolEpisode(input: RunPoolEpisodeInput) {
  assertProtocol(TERMINAL, input.pool);
  const episode = await startEpisode(input);
  return executePoolEpisode(episode.id, input);
}

/** Runs a claimed (RUNNING) episode on the pool to its end; returns it with its steps. */
export const executePoolEpisode = (episodeId: string, opts: PoolExecuteOptions) => runOnPool(TERMINAL, episodeId, opts);
