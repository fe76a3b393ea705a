// Episode leases: what a slime job of an environment experiment trains on. The console runs the episodes
// (workers/episodes, through the recording proxy in front of the job's SGLang router, so the dashboard has
// every step as a turn); the job leases *finished GRPO groups* — the n episodes of one task launched together —
// and turns each episode into one slime Sample whose step spans and step scores the fork's `step_wise`
// estimator normalises per (group, step index) (integrations/slime/episodes.py).
//
// Bookkeeping is the sample lease's (service.ts openLease): an episode lease holds the Sample rows of its
// episodes' step turns, and the ordinary acknowledgement trains them once. A group is ready when its
// advantages were written (every member ended, PRM votes waited for) and every recorded step of its DONE
// members has a free Sample row of this run. What trains is read from the episodes, not from the samples'
// labels: the fork's estimator gets the raw step scores and drops constant buckets itself, so a step our own
// estimator dropped still travels in its trajectory. FAILED members (no outcome) and held-out tasks never train.
import { db } from "../../platform/db/client";
import type { Principal } from "../../access/principal";
import { loadLeasedSamples } from "./payload";
import { openLease, type LeasePicker, type SampleFiller, type Tx } from "./service";
import type { EpisodeLeaseInputT, EpisodeLeaseResult, LeasedGroup } from "./schemas";

type Reader = Pick<Tx, "$queryRaw">;

/** LIMIT for "count them all": far above any number of groups an experiment runs. */
const ALL = 1_000_000_000;

/** Keys of the run's ready, untrained, unheld groups, the earliest finished first (at most `limit`). */
async function readyGroupKeys(client: Reader, runId: string, now: Date, limit: number | null): Promise<string[]> {
  const rows = await client.$queryRaw<{ key: string }[]>`
    SELECT e."groupKey" AS key
    FROM episodes e
    JOIN tasks t ON t.id = e."taskId"
    JOIN episode_steps s ON s."episodeId" = e.id AND s."turnId" IS NOT NULL
    LEFT JOIN samples sa ON sa."turnId" = s."turnId" AND sa."runId" = ${runId}
    LEFT JOIN batch_leases bl ON bl.id = sa."leaseId"
    WHERE e."experimentId" = (SELECT "experimentId" FROM runs WHERE id = ${runId})
      AND e."groupKey" IS NOT NULL AND e.status = 'DONE' AND e."advantagesAt" IS NOT NULL AND t.split = 'train'
    GROUP BY e."groupKey"
    HAVING bool_and(
      sa.id IS NOT NULL AND sa."stepId" IS NULL
      AND (sa."leaseId" IS NULL OR (bl."ackedAt" IS NULL AND bl."expiresAt" <= ${now}))
    )
    ORDER BY max(e."advantagesAt"), e."groupKey"
    LIMIT ${limit ?? ALL}`;
  return rows.map((r) => r.key);
}

/** The Sample rows of the groups' DONE members' recorded steps, group by group, member by member, step by step. */
async function groupSampleIds(client: Tx, runId: string, groupKeys: string[]): Promise<string[]> {
  const episodes = await client.episode.findMany({
    where: { groupKey: { in: groupKeys }, status: "DONE" },
    orderBy: [{ sampleIndex: "asc" }, { id: "asc" }],
    select: { groupKey: true, steps: { orderBy: { index: "asc" }, select: { turnId: true } } },
  });
  const turnIds = episodes.flatMap((e) => e.steps.flatMap((s) => (s.turnId ? [s.turnId] : [])));
  const samples = await client.sample.findMany({
    where: { runId, turnId: { in: turnIds } },
    select: { id: true, turnId: true },
  });
  const byTurn = new Map(samples.map((s) => [s.turnId, s.id]));
  return groupKeys.flatMap((key) =>
    episodes
      .filter((e) => e.groupKey === key)
      .flatMap((e) => e.steps.flatMap((s) => (s.turnId && byTurn.has(s.turnId) ? [byTurn.get(s.turnId)!] : []))),
  );
}

/**
 * The leased samples as groups → episodes → steps: each step keeps its turn's payload (prompt as served,
 * response tokens and behaviour log-probs), its PRM score and its step-wise score (the PRM score when the
 * judge voted on it, else the episode's outcome, as server/environments/advantages/group.ts scores steps).
 */
export async function loadLeasedGroups(sampleIds: readonly string[]): Promise<LeasedGroup[]> {
  const samples = await loadLeasedSamples(sampleIds);
  const sampleByTurn = new Map(samples.map((s) => [s.turnId, s]));
  const steps = await db().episodeStep.findMany({
    where: { turnId: { in: [...sampleByTurn.keys()] } },
    select: {
      index: true,
      turnId: true,
      prmScore: true,
      advantage: true,
      episode: {
        select: {
          id: true,
          groupKey: true,
          sampleIndex: true,
          outcome: true,
          estimator: true,
          truncation: true,
          task: { select: { id: true, key: true } },
        },
      },
    },
  });
  const groups = new Map<string, LeasedGroup>();
  for (const s of steps) {
    const e = s.episode;
    const key = e.groupKey!;
    if (!groups.has(key))
      groups.set(key, { groupKey: key, taskId: e.task.id, taskKey: e.task.key, failed: 0, episodes: [] });
    const group = groups.get(key)!;
    let ep = group.episodes.find((x) => x.episodeId === e.id);
    if (!ep) {
      ep = {
        episodeId: e.id,
        sampleIndex: e.sampleIndex,
        outcome: e.outcome ?? 0,
        estimator: e.estimator,
        truncation: e.truncation,
        steps: [],
      };
      group.episodes.push(ep);
    }
    ep.steps.push({
      index: s.index,
      prmScore: s.prmScore,
      score: s.prmScore ?? e.outcome ?? 0,
      advantage: s.advantage,
      sample: sampleByTurn.get(s.turnId!)!,
    });
  }
  const failed = await db().episode.groupBy({
    by: ["groupKey"],
    where: { groupKey: { in: [...groups.keys()] }, status: "FAILED" },
    _count: { _all: true },
  });
  for (const f of failed) groups.get(f.groupKey!)!.failed = f._count._all;
  // In the order the lease holds them (earliest finished group first).
  const order = new Map(sampleIds.map((id, i) => [id, i]));
  const first = (g: LeasedGroup) =>
    Math.min(...g.episodes.flatMap((e) => e.steps.map((s) => order.get(s.sample.sampleId)!)));
  for (const g of groups.values()) {
    g.episodes.sort((a, b) => (a.sampleIndex ?? 0) - (b.sampleIndex ?? 0) || a.episodeId.localeCompare(b.episodeId));
    for (const e of g.episodes) e.steps.sort((a, b) => a.index - b.index);
  }
  return [...groups.values()].sort((a, b) => first(a) - first(b));
}

export async function leaseEpisodeGroups(
  p: Principal,
  runId: string,
  input: EpisodeLeaseInputT,
  opts: { fill?: SampleFiller } = {},
): Promise<EpisodeLeaseResult> {
  const pickGroups: LeasePicker = async (tx, id, now) => {
    const keys = await readyGroupKeys(tx, id, now, input.groups);
    if (keys.length < input.minGroups) return null;
    return { sampleIds: await groupSampleIds(tx, id, keys) };
  };
  const l = await openLease(p, runId, input, pickGroups, opts);
  return {
    leaseId: l.leaseId,
    expiresAt: l.expiresAt,
    paused: l.paused,
    available: l.now ? (await readyGroupKeys(db(), runId, l.now, null)).length : 0,
    policyVersion: l.policyVersion,
    groups: await loadLeasedGroups(l.sampleIds),
  };
}
