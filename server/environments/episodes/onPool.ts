// The skeleton every remote-pool runner shares (terminal, swe, gui): check the pool's protocol → allocate the
// task on the pool → record the lease with the episode → reset → the runner's own agent loop → evaluate →
// finish → close. A pool that loses the lease or dies mid-episode fails the episode with no outcome: the
// lease is never evaluated, so nothing is counted, let alone twice; the lease is closed whatever happens.
// Each runner keeps only what differs: the task it sends and the loop it drives.
import { db } from "../../platform/db/client";
import { badRequest } from "../../platform/errors";
import type { PoolProtocol } from "../sandbox/remote/wire";
import type {
  RemoteEvaluation,
  RemoteLease,
  RemotePoolProvider,
  RemoteReset,
  RemoteTask,
} from "../sandbox/remote/provider";
import { failEpisode, finish, json, loadClaimed, timed, type AgentEndpoint } from "./runner";

export interface PoolExecuteOptions {
  agent: AgentEndpoint;
  /** A remote-pool provider (its pools' URLs) of the runner's protocol. */
  pool: RemotePoolProvider;
  /** Aborted: the episode stops between steps and throws (the worker puts it back in the queue). */
  signal?: AbortSignal;
}

export type Claimed = Awaited<ReturnType<typeof loadClaimed>>;

export interface PoolDrive extends Claimed {
  lease: RemoteLease;
  reset: RemoteReset;
  opts: PoolExecuteOptions;
}

export interface PoolRunner {
  protocol: PoolProtocol;
  /** What the episode is called in the refusal of a pool of another protocol. */
  label: string;
  /** The task as the pool takes it at allocate; throws (a 400) when the task cannot run on such a pool. */
  task: (c: Claimed) => RemoteTask;
  /** The agent loop on the reset lease; true when the agent finished within its step budget. */
  drive: (d: PoolDrive) => Promise<boolean>;
  /** The outcome's detail beside the pool's URL (default: what the pool's evaluate said). */
  detail?: (verdict: RemoteEvaluation) => Record<string, unknown>;
}

export function assertProtocol(runner: Pick<PoolRunner, "protocol" | "label">, pool: RemotePoolProvider): void {
  if (pool.protocol !== runner.protocol)
    throw badRequest(`a ${runner.label} episode needs a ${runner.protocol} pool, not ${pool.protocol}`);
}

/** Keeps with the episode where its lease lives (pool URL # the pool's lease id) and the session it records under. */
function recordLease(
  episodeId: string,
  pool: RemotePoolProvider,
  lease: RemoteLease,
  sessionId: string,
  allocateMs: number,
) {
  return db().episode.update({
    where: { id: episodeId },
    data: { leaseId: `${lease.pool}#${lease.poolLeaseId}`, leaseProvider: pool.name, sessionId, allocateMs },
  });
}

/** Runs a claimed (RUNNING) episode on the runner's pool to its end; returns it with its steps. */
export async function runOnPool(runner: PoolRunner, episodeId: string, opts: PoolExecuteOptions) {
  const claimed = await loadClaimed(episodeId);
  const { episode, sessionId } = claimed;
  let leaseId: string | null = null;
  try {
    assertProtocol(runner, opts.pool);
    const [lease, allocateMs] = await timed(() =>
      opts.pool.allocate({
        task: runner.task(claimed),
        episodeId: episode.id,
        sampleIndex: episode.sampleIndex ?? undefined,
      }),
    );
    leaseId = lease.id;
    await recordLease(episode.id, opts.pool, lease, sessionId, allocateMs);
    const reset = await opts.pool.reset(lease.id);
    const finished = await runner.drive({ ...claimed, lease, reset, opts });
    const [verdict, evaluateMs] = await timed(() => opts.pool.evaluate(lease.id));
    return await finish(episode.id, {
      evaluateMs,
      status: "DONE",
      outcome: verdict.reward,
      outcomeDetail: json({ pool: lease.pool, ...(runner.detail ? runner.detail(verdict) : verdict.detail) }),
      truncation: finished ? null : "step_budget",
    });
  } catch (e) {
    await failEpisode(episode.id, e, opts.signal);
    throw e;
  } finally {
    if (leaseId) await opts.pool.close(leaseId);
  }
}

/** The assistant message as it goes back into the conversation (tool calls kept when there are any). */
export function assistantTurn(message: { content?: string | null; tool_calls?: unknown[] | null }) {
  const calls = message.tool_calls ?? [];
  return { role: "assistant", content: message.content ?? "", ...(calls.length ? { tool_calls: calls } : {}) };
}
