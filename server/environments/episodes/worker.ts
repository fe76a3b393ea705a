// The episode worker's moving parts (workers/episodes is the wiring): the consumer of `episode` jobs, which
// claims a QUEUED episode atomically and runs it; a heartbeat stamped on the episodes this process runs; and
// a sweeper that gives a RUNNING episode whose heartbeat went stale (its worker was killed) another attempt,
// or marks it FAILED after `maxAttempts`, and re-enqueues QUEUED episodes whose job was lost with Redis. A
// retried episode starts again from nothing (its steps and screenshots are deleted at the claim), so an
// episode is never half-counted. Concurrency is bounded per process, and per environment across every worker
// (episodes/slots.ts: a Redis semaphore whose slots are leased, so a killed worker's slots come back when their
// leases expire). Which runner an episode takes (local loop, harness, remote pool) is dispatch.ts's. Each
// sweep also tops up the active standing launches (standing.ts).
import type { Redis } from "ioredis";
import { enqueue, consume } from "../../platform/bus/queues";
import { db } from "../../platform/db/client";
import { errorText } from "../../platform/errors";
import { computeGroupAdvantages } from "../advantages/group";
import type { SandboxProvider } from "../sandbox/provider";
import { executeClaimedEpisode } from "./dispatch";
import type { AgentEndpoint } from "./runner";
import { jobIdOf } from "./jobs";
import { EnvironmentSlots } from "./slots";
import { topUpStandingLaunches } from "./standing";

export interface EpisodeWorkerOptions {
  /** The policy endpoint for an experiment's episodes (the proxy, with a key that may call it). */
  agentFor(experimentId: string): Promise<AgentEndpoint>;
  concurrency: number;
  /** Episodes of one environment at once across every worker (a Redis semaphore; slots leased for `staleMs`). */
  perEnvironment: number;
  staleMs: number;
  maxAttempts: number;
  sweepMs: number;
  /** How long a step-PRM group waits for its judgments (the sweeper retries it meanwhile). */
  prmWaitMs?: number;
  /** Limit the sweeper to these experiments (tests, partial deployments). */
  experimentIds?: readonly string[];
  provider?: SandboxProvider;
  /** The Redis connection of the environment slots (tests run two workers as independent clients). */
  redis?: Redis;
  /** Where a harness's agent is installed on this host (HARNESS_AGENT_INSTALL), mounted read-only for it. */
  agentInstall?: string;
  setActivity?: (a: string) => void;
  setStat?: (name: string, value: number) => void;
  log?: (...args: unknown[]) => void;
}

/** QUEUED → RUNNING, once: the claim that makes a second delivery of the same job a no-op. */
export async function claimEpisode(episodeId: string): Promise<boolean> {
  const now = new Date();
  const claimed = await db().episode.updateMany({
    // A pinned version's evaluation episode is the evaluate worker's (server/evaluation/episodes.ts), never ours.
    where: { id: episodeId, status: "QUEUED", policyVersion: null },
    data: {
      status: "RUNNING",
      attempts: { increment: 1 },
      startedAt: now,
      heartbeatAt: now,
      finishedAt: null,
      error: null,
      outcome: null,
      truncation: null,
      leaseId: null,
      allocateMs: null,
      evaluateMs: null,
    },
  });
  if (claimed.count === 0) return false;
  await db().episodeStep.deleteMany({ where: { episodeId } });
  await db().episodeScreenshot.deleteMany({ where: { episodeId } });
  return true;
}

/** Puts back or fails the RUNNING episodes whose worker stopped heartbeating; re-enqueues orphaned QUEUED ones. */
export async function sweepEpisodes(opts: {
  staleMs: number;
  maxAttempts: number;
  prmWaitMs?: number;
  experimentIds?: readonly string[];
  now?: number;
}) {
  const cutoff = new Date((opts.now ?? Date.now()) - opts.staleMs);
  const scope = {
    policyVersion: null,
    ...(opts.experimentIds ? { experimentId: { in: [...opts.experimentIds] } } : {}),
  };
  const stale = await db().episode.findMany({
    where: { ...scope, status: "RUNNING", heartbeatAt: { lt: cutoff } },
    select: { id: true, attempts: true, groupKey: true },
  });
  const requeued: string[] = [];
  const failed: string[] = [];
  for (const e of stale) {
    const give = e.attempts < opts.maxAttempts;
    const r = await db().episode.updateMany({
      where: { id: e.id, status: "RUNNING", heartbeatAt: { lt: cutoff } },
      data: give
        ? { status: "QUEUED", error: `its worker stopped after attempt ${e.attempts}; queued again` }
        : { status: "FAILED", error: `its worker stopped on each of ${e.attempts} attempts`, finishedAt: new Date() },
    });
    if (r.count === 0) continue;
    (give ? requeued : failed).push(e.id);
    if (!give && e.groupKey) await computeGroupAdvantages(e.groupKey, opts);
  }
  // A QUEUED episode older than the stale window may have lost its job (Redis flushed): the job id is
  // deterministic, so re-enqueueing one that still exists is a no-op.
  const orphans = await db().episode.findMany({
    where: { ...scope, status: "QUEUED", OR: [{ id: { in: requeued } }, { createdAt: { lt: cutoff } }] },
    select: { id: true, experimentId: true, attempts: true },
    take: 1000,
  });
  for (const o of orphans)
    await enqueue("episode", { episodeId: o.id, experimentId: o.experimentId }, jobIdOf(o.id, o.attempts));
  // Ended groups without advantages yet: a PRM group waiting for its judgments, or one whose worker died
  // between an episode's end and the group's computation.
  const pending = await db().episode.findMany({
    where: { ...scope, groupKey: { not: null }, advantagesAt: null, status: { in: ["DONE", "FAILED"] } },
    distinct: ["groupKey"],
    select: { groupKey: true },
    take: 200,
  });
  const computed: string[] = [];
  for (const g of pending) if (await computeGroupAdvantages(g.groupKey!, opts)) computed.push(g.groupKey!);
  return { requeued, failed, computed };
}

export function startEpisodeWorker(opts: EpisodeWorkerOptions) {
  const log = opts.log ?? (() => {});
  const controller = new AbortController();
  const running = new Set<string>();
  const totals = { done: 0, failed: 0, requeued: 0 };
  const slots = new EnvironmentSlots({ limit: opts.perEnvironment, leaseMs: opts.staleMs, client: opts.redis });
  const report = () => {
    for (const [k, v] of Object.entries(totals)) opts.setStat?.(`${k}_total`, v);
    opts.setStat?.("running", running.size);
    opts.setActivity?.(running.size ? `running ${running.size} episode(s)` : "idle: waiting for episodes");
  };

  const bull = consume(
    "episode",
    async ({ episodeId }) => {
      const row = await db().episode.findUnique({ where: { id: episodeId }, select: { environmentId: true } });
      if (!row) return;
      const slot = await slots.take(row.environmentId, episodeId, controller.signal);
      // Shutting down while waiting: the episode is still QUEUED, and the sweeper re-enqueues it.
      if (!slot) return;
      try {
        if (controller.signal.aborted || !(await claimEpisode(episodeId))) return;
        running.add(episodeId);
        report();
        const episode = await db().episode.findUniqueOrThrow({ where: { id: episodeId } });
        try {
          const ended = await executeClaimedEpisode(episodeId, {
            agent: await opts.agentFor(episode.experimentId),
            provider: opts.provider,
            agentInstall: opts.agentInstall,
            signal: controller.signal,
          });
          if (ended.status === "DONE") totals.done++;
          else totals.failed++;
        } catch (err) {
          if (controller.signal.aborted) {
            // Shutting down: hand it back at once rather than waiting for the sweeper.
            await db().episode.updateMany({
              where: { id: episodeId, status: "RUNNING" },
              data: { status: "QUEUED", error: "its worker shut down; queued again" },
            });
            await enqueue(
              "episode",
              { episodeId, experimentId: episode.experimentId },
              jobIdOf(episodeId, episode.attempts),
            );
            totals.requeued++;
            return;
          }
          totals.failed++;
          log(`episode ${episodeId} failed: ${errorText(err)}`);
        } finally {
          running.delete(episodeId);
        }
        if (episode.groupKey) await computeGroupAdvantages(episode.groupKey, { prmWaitMs: opts.prmWaitMs });
      } finally {
        await slots.give(slot).catch((err: Error) => log(`releasing the environment slot failed: ${err.message}`));
        report();
      }
    },
    { concurrency: opts.concurrency, lockDuration: 60_000 },
  );
  bull.on("error", (err) => log(`queue error: ${err.message}`));

  const beat = async () => {
    // A lost slot lease means this process stalled past staleMs: the episode itself is re-queued by then too.
    const lost = await slots.renewAll().catch((err: Error) => {
      log(`renewing environment slots failed: ${err.message}`);
      return [];
    });
    for (const holder of lost) log(`environment slot ${holder} expired before its episode ended`);
    if (running.size === 0) return;
    await db()
      .episode.updateMany({ where: { id: { in: [...running] }, status: "RUNNING" }, data: { heartbeatAt: new Date() } })
      .catch((err: Error) => log(`heartbeat failed: ${err.message}`));
  };
  const heartbeat = setInterval(() => void beat(), Math.max(100, Math.floor(opts.staleMs / 4)));
  let sweeping: Promise<void> | null = null;
  const sweep = () =>
    (sweeping ??= sweepEpisodes(opts)
      .then((r) => {
        totals.requeued += r.requeued.length;
        for (const id of r.requeued) log(`episode ${id} lost its worker: queued again`);
        for (const id of r.failed) log(`episode ${id} lost its worker on its last attempt: failed`);
      })
      // Standing launches: refill what ended since the last tick (docs/environments.md, "Keep launching").
      .then(async () => {
        const { groups } = await topUpStandingLaunches({ experimentIds: opts.experimentIds, log });
        if (groups) log(`standing launches: ${groups} group(s) launched`);
      })
      .catch((err: Error) => log(`sweep failed: ${err.message}`))
      .finally(() => (sweeping = null)));
  const sweeper = setInterval(() => void sweep(), opts.sweepMs);
  void sweep();
  report();
  return {
    totals,
    sweep,
    async close() {
      clearInterval(heartbeat);
      clearInterval(sweeper);
      controller.abort();
      await bull.close();
      await sweeping;
    },
  };
}
