// Turning judged turns into a run's training samples, idempotently: one Sample per (run, turn), created
// once the turn is judged (or labelled by a human), refreshed while it has not trained (a reviewer's
// relabel, or the policy moving on, changes its reward, kind, exclusion or staleness), frozen once a
// step took it (`stepId` is set once). Excluded samples are kept with their reason, never trained.
// Exported for every trainer backend (the embedded loop here; the Ray/slime batch lease later).
import { db, type Prisma } from "../platform/db/client";
import { notFound } from "../platform/errors";
import { ExperimentConfigSchema } from "../config/experimentConfig";
import { activeVersion } from "../policyVersions/active";
import { effectiveLabelsForTurns } from "../labels/effective";
import { EPISODE_SESSION_PREFIX } from "../labels/episodes";
import { decideSample, type SampleDecision } from "./decide";
import type { BatchFill } from "./schemas";

/** Fresh turns handled per call, so a large backlog is absorbed over a few calls. */
const FRESH_LIMIT = 2000;

/**
 * Labels and judgments are stamped with their transaction's start time, so one committed just after a
 * call may carry an earlier timestamp than the call's start: the next call looks back this far.
 */
const WATERMARK_SLACK_MS = 60_000;

export interface CollectOptions {
  /** Refresh only untrained samples whose turn got a judgment or label since then (plus every effective
   *  one, whose staleness moves with the policy). Omitted: refresh every untrained sample. */
  since?: Date | null;
}

export interface CollectResult {
  created: number;
  updated: number;
  /** pass as `since` to the next call */
  watermark: Date;
  /** the version staleness was measured against */
  currentVersion: number;
}

type RunRow = { id: string; experimentId: string; config: Prisma.JsonValue; createdAt: Date; endedAt: Date | null };

/** Turns of the run: recorded for it by the proxy, or recorded for its experiment while it was live. */
export function runTurnsWhere(run: RunRow): Prisma.TurnWhereInput {
  return {
    experimentId: run.experimentId,
    turnType: "MAIN",
    status: "OK",
    OR: [
      { runId: run.id },
      { runId: null, createdAt: { gte: run.createdAt, ...(run.endedAt ? { lte: run.endedAt } : {}) } },
    ],
  };
}

async function loadRun(runId: string): Promise<RunRow> {
  const run = await db().run.findUnique({
    where: { id: runId },
    select: { id: true, experimentId: true, config: true, createdAt: true, endedAt: true },
  });
  if (!run) throw notFound("Run", runId);
  return run;
}

const same = (
  a: SampleDecision,
  b: {
    kind: string;
    reward: number;
    labelSource: string;
    excluded: boolean;
    excludeReason: string | null;
    staleness: number | null;
  },
) =>
  a.kind === b.kind &&
  a.reward === b.reward &&
  a.labelSource === b.labelSource &&
  a.excluded === b.excluded &&
  a.excludeReason === b.excludeReason &&
  a.staleness === b.staleness;

export async function collectSamples(runId: string, opts: CollectOptions = {}): Promise<CollectResult> {
  const startedAt = Date.now();
  const run = await loadRun(runId);
  const config = ExperimentConfigSchema.parse(run.config);
  const { version: currentVersion } = await activeVersion(run.experimentId);
  const since = opts.since ?? null;

  const [fresh, pending] = await Promise.all([
    db().turn.findMany({
      where: {
        ...runTurnsWhere(run),
        samples: { none: { runId } },
        AND: [
          {
            OR: [
              { judgments: { some: {} } },
              { labels: { some: { source: { in: ["REVIEWER", "USER"] } } } },
              // an agent episode's step, labelled by its group's advantages (labels/episodes.ts)
              { session: { externalId: { startsWith: EPISODE_SESSION_PREFIX } } },
            ],
          },
        ],
      },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: FRESH_LIMIT,
      select: { id: true },
    }),
    db().sample.findMany({
      where: {
        runId,
        stepId: null,
        ...(since
          ? {
              OR: [
                { excluded: false },
                {
                  turn: {
                    OR: [
                      { judgments: { some: { createdAt: { gte: since } } } },
                      { labels: { some: { createdAt: { gte: since } } } },
                    ],
                  },
                },
              ],
            }
          : {}),
      },
      select: {
        id: true,
        turnId: true,
        kind: true,
        reward: true,
        labelSource: true,
        excluded: true,
        excludeReason: true,
        staleness: true,
      },
    }),
  ]);
  const turnIds = [...fresh.map((t) => t.id), ...pending.map((s) => s.turnId)];
  if (turnIds.length === 0)
    return { created: 0, updated: 0, watermark: new Date(startedAt - WATERMARK_SLACK_MS), currentVersion };

  const [labels, facts] = await Promise.all([
    effectiveLabelsForTurns(turnIds),
    db().turn.findMany({
      where: { id: { in: turnIds } },
      select: { id: true, policyVersion: true, tokenIds: true, logprobs: true },
    }),
  ]);
  const factsById = new Map(facts.map((t) => [t.id, t]));
  const decide = (turnId: string): SampleDecision | null => {
    const label = labels.get(turnId);
    const t = factsById.get(turnId);
    if (!label || !t) return null;
    return decideSample(label, {
      method: config.method,
      currentVersion,
      servedVersion: t.policyVersion,
      maxStaleness: config.hyper.maxStaleness,
      stalePolicy: config.hyper.stalePolicy,
      tokenCount: t.tokenIds.length,
      logprobCount: t.logprobs.length,
    });
  };

  const rows: Prisma.SampleCreateManyInput[] = [];
  for (const { id } of fresh) {
    const d = decide(id);
    if (!d) continue;
    rows.push({
      runId,
      turnId: id,
      kind: d.kind,
      reward: d.reward,
      labelSource: d.labelSource,
      excluded: d.excluded,
      excludeReason: d.excludeReason,
      staleness: d.staleness,
    });
  }
  const created = rows.length ? (await db().sample.createMany({ data: rows, skipDuplicates: true })).count : 0;

  let updated = 0;
  for (const s of pending) {
    const d = decide(s.turnId);
    if (!d || same(d, s)) continue;
    const r = await db().sample.updateMany({
      where: { id: s.id, stepId: null },
      data: {
        kind: d.kind,
        reward: d.reward,
        labelSource: d.labelSource,
        excluded: d.excluded,
        excludeReason: d.excludeReason,
        staleness: d.staleness,
      },
    });
    updated += r.count;
  }
  return { created, updated, watermark: new Date(startedAt - WATERMARK_SLACK_MS), currentVersion };
}

/** Effective samples waiting for a step, against the run's batch size. */
export async function batchFill(runId: string): Promise<BatchFill> {
  const run = await loadRun(runId);
  const config = ExperimentConfigSchema.parse(run.config);
  const ready = await db().sample.count({ where: { runId, stepId: null, excluded: false } });
  return { ready, needed: config.hyper.batchSize };
}

/** The next batch: the `n` oldest effective untrained samples (by when their turn was served); the rest carry over. */
export async function nextBatch(runId: string, n: number) {
  return db().sample.findMany({
    where: { runId, stepId: null, excluded: false },
    orderBy: [{ turn: { createdAt: "asc" } }, { id: "asc" }],
    take: n,
  });
}
