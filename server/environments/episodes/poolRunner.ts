// Runs one terminal episode on a remote pool (terminal-rl's `pool_server`): the pool holds the task (by key,
// under its DATASET_DIR) and its verifier; we hold the agent loop, so the policy is called through the
// recording proxy (each step keeps its X-Turn-Id) with the tools the pool offers, and each tool call is the
// pool's `exec_tool`. A pool that loses the lease or dies mid-episode fails the episode with no outcome: the
// lease is never evaluated, so nothing is counted, let alone twice.
import { db } from "../../platform/db/client";
import { badRequest } from "../../platform/errors";
import type { RemoteLease, RemotePoolProvider } from "../sandbox/remote/provider";
import {
  callPolicy,
  failEpisode,
  finish,
  json,
  loadClaimed,
  recordStep,
  startEpisode,
  type AgentEndpoint,
  type RunEpisodeInput,
} from "./runner";

export interface PoolExecuteOptions {
  agent: AgentEndpoint;
  /** A `terminal` remote-pool provider (its pools' URLs). */
  pool: RemotePoolProvider;
  /** Aborted: the episode stops between steps and throws (the worker puts it back in the queue). */
  signal?: AbortSignal;
}

/** Keeps with the episode where its lease lives (pool URL # the pool's lease id) and the session it records under. */
export function recordLease(episodeId: string, pool: RemotePoolProvider, lease: RemoteLease, sessionId: string) {
  return db().episode.update({
    where: { id: episodeId },
    data: { leaseId: `${lease.pool}#${lease.poolLeaseId}`, leaseProvider: pool.name, sessionId },
  });
}

export type RunPoolEpisodeInput = Omit<RunEpisodeInput, "agent" | "provider"> & PoolExecuteOptions;

const assertTerminalPool = (pool: RemotePoolProvider) => {
  if (pool.protocol !== "terminal")
    throw badRequest(`a ${pool.protocol} pool needs its own agent loop: this runner drives terminal pools`);
};

/** Creates, claims and runs one pool episode in this process (scripts and tests; the worker queues them). */
export async function runPoolEpisode(input: RunPoolEpisodeInput) {
  assertTerminalPool(input.pool);
  const episode = await startEpisode(input);
  return executePoolEpisode(episode.id, input);
}

/** Runs a claimed (RUNNING) episode on the pool to its end; returns it with its steps. */
export async function executePoolEpisode(episodeId: string, opts: PoolExecuteOptions) {
  const { episode, spec, sessionId } = await loadClaimed(episodeId);
  let leaseId: string | null = null;
  try {
    assertTerminalPool(opts.pool);
    if (spec.kind !== "terminal")
      throw badRequest(`Task ${episode.task.key} is a ${spec.kind} task: pools run terminal tasks`);
    const lease = await opts.pool.allocate({
      // The pool finds the task under its DATASET_DIR by `task_path` (the task's key unless its metadata says).
      task: {
        key: spec.key,
        instruction: spec.instruction,
        meta: { task_path: (spec.metadata.task_path as string | undefined) ?? spec.key },
      },
      episodeId: episode.id,
      sampleIndex: episode.sampleIndex ?? undefined,
    });
    leaseId = lease.id;
    await recordLease(episode.id, opts.pool, lease, sessionId);
    const reset = await opts.pool.reset(lease.id);

    const messages: unknown[] = [{ role: "user", content: reset.instruction }];
    let finished = false;
    for (let step = 0; step < episode.maxSteps; step++) {
      opts.signal?.throwIfAborted();
      const { message, turnId } = await callPolicy(opts.agent, sessionId, messages, reset.tools, null, opts.signal);
      const calls = message.tool_calls ?? [];
      messages.push({
        role: "assistant",
        content: message.content ?? "",
        ...(calls.length ? { tool_calls: calls } : {}),
      });
      if (calls.length === 0) {
        finished = true;
        break;
      }
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

    const verdict = await opts.pool.evaluate(lease.id);
    return await finish(episode.id, {
      status: "DONE",
      outcome: verdict.reward,
      outcomeDetail: json({ pool: lease.pool, ...verdict.detail }),
      truncation: finished ? null : "step_budget",
    });
  } catch (e) {
    await failEpisode(episode.id, e, opts.signal);
    throw e;
  } finally {
    if (leaseId) await opts.pool.close(leaseId);
  }
}
