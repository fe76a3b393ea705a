// Simulated-user controls (Postgres, audited) and what the UI shows about them: per experiment on/off,
// rate, concurrency, personas, seed and turn limit; a global switch (the "*" row, and SIMULATE=0 in the
// environment, which wins); live stats from the worker (Redis); and the judged reward per policy version —
// the answer to "is the model improving?".
import { settings, type EnvSource } from "../platform/env";
import { authorizeRow, experimentIdOrSlug } from "../access/scope";
import type { z } from "zod";
import { db } from "../platform/db/client";
import { LIVE_RUN_STATUSES } from "../platform/db/runStatus";
import { Prisma } from "../platform/db/generated/client";
import { audit } from "../access/audit";
import { boundExperimentId, type Principal, actorUserId } from "../access/principal";
import { publish } from "../platform/bus/pubsub";
import { KEYS, type SimulationStats } from "../platform/bus/contracts";
import { ExperimentConfigSchema } from "../config/experimentConfig";
import { badRequest, fromZod } from "../platform/errors";
import { redis, rkey } from "../platform/redis";
import type { SimulationControl } from "../platform/db/generated/client";
import {
  DEFAULT_SETTINGS,
  GLOBAL_KEY,
  SimulationSettingsSchema,
  type SimulationGlobalInput,
  type SimulationProgressInput,
  type SimulationSettings,
  type SimulationUpdateInput,
} from "./schemas";

/** SIMULATE=0 turns simulated traffic off for this process, whatever the database says. */
export function simulationAllowedByEnv(source?: EnvSource): boolean {
  return settings("simulate", source).SIMULATE;
}

export function settingsOf(row: SimulationControl | null): SimulationSettings {
  if (!row) return { ...DEFAULT_SETTINGS };
  return {
    perMinute: row.perMinute,
    concurrency: row.concurrency,
    personas: row.personas,
    seed: row.seed,
    maxTurns: row.maxTurns,
  };
}

/** Best-effort wake-up: the worker also polls, so a Redis outage delays a change, never loses it. */
async function notify(experimentId: string): Promise<void> {
  await publish("simulationControl", { experimentId }).catch(() => {});
}

export async function globalEnabled(): Promise<boolean> {
  const row = await db().simulationControl.findUnique({ where: { experimentId: GLOBAL_KEY } });
  return row?.enabled ?? true;
}

export interface ActiveSimulation {
  experimentId: string;
  slug: string;
  settings: SimulationSettings;
}

/** What the worker should run now: enabled simulations of active experiments (none when switched off). */
export async function activeSimulations(
  source?: EnvSource,
): Promise<{ on: boolean; reason: string | null; items: ActiveSimulation[] }> {
  if (!simulationAllowedByEnv(source)) return { on: false, reason: "SIMULATE=0", items: [] };
  if (!(await globalEnabled())) return { on: false, reason: "switched off in the UI", items: [] };
  const rows = await db().simulationControl.findMany({ where: { enabled: true, experimentId: { not: GLOBAL_KEY } } });
  if (!rows.length) return { on: true, reason: null, items: [] };
  const experiments = await db().experiment.findMany({
    where: { id: { in: rows.map((r) => r.experimentId) }, status: "ACTIVE" },
    select: { id: true, slug: true },
  });
  const slugs = new Map(experiments.map((e) => [e.id, e.slug]));
  return {
    on: true,
    reason: null,
    items: rows.flatMap((r) =>
      slugs.has(r.experimentId)
        ? [{ experimentId: r.experimentId, slug: slugs.get(r.experimentId)!, settings: settingsOf(r) }]
        : [],
    ),
  };
}

export async function readStats(experimentIds: readonly string[]): Promise<Map<string, SimulationStats>> {
  const out = new Map<string, SimulationStats>();
  if (!experimentIds.length) return out;
  const values = await redis()
    .mget(experimentIds.map((id) => rkey(KEYS.simulationStats.key(id))))
    .catch(() => [] as (string | null)[]);
  values.forEach((v) => {
    if (!v) return;
    const parsed = KEYS.simulationStats.payload.safeParse(JSON.parse(v));
    if (parsed.success) out.set(parsed.data.experimentId, parsed.data);
  });
  return out;
}

export async function writeStats(stats: SimulationStats, ttlS = 15): Promise<void> {
  await redis().set(
    rkey(KEYS.simulationStats.key(stats.experimentId)),
    JSON.stringify(KEYS.simulationStats.payload.parse(stats)),
    "EX",
    ttlS,
  );
}

export async function listSimulations(p: Principal) {
  const bound = boundExperimentId(p);
  const experiments = await db().experiment.findMany({
    where: { status: "ACTIVE", ...(bound ? { id: bound } : {}) },
    orderBy: [{ demo: "desc" }, { createdAt: "asc" }],
    include: {
      runs: {
        where: { status: { in: LIVE_RUN_STATUSES } },
        orderBy: { number: "desc" },
        take: 1,
        select: { id: true, number: true, status: true, lastStep: true },
      },
    },
  });
  const ids = experiments.map((e) => e.id);
  const [rows, global, stats] = await Promise.all([
    db().simulationControl.findMany({ where: { experimentId: { in: ids } } }),
    globalEnabled(),
    readStats(ids),
  ]);
  const byId = new Map(rows.map((r) => [r.experimentId, r]));
  return {
    envEnabled: simulationAllowedByEnv(),
    globalEnabled: global,
    items: experiments.map((e) => {
      const row = byId.get(e.id) ?? null;
      return {
        experiment: {
          id: e.id,
          slug: e.slug,
          name: e.name,
          demo: e.demo,
          method: ExperimentConfigSchema.parse(e.config).method,
          activeRun: e.runs[0] ?? null,
        },
        enabled: row?.enabled ?? false,
        settings: settingsOf(row),
        updatedAt: row?.updatedAt.toISOString() ?? null,
        stats: stats.get(e.id) ?? null,
      };
    }),
  };
}

async function resolveExperiment(p: Principal, idOrSlug: string) {
  return authorizeRow(
    p,
    "Experiment",
    idOrSlug,
    await db().experiment.findFirst({
      where: experimentIdOrSlug(idOrSlug),
      select: { id: true, slug: true, status: true, config: true },
    }),
    (r) => r.id,
  );
}

export async function updateSimulation(p: Principal, input: z.output<typeof SimulationUpdateInput>) {
  const { experimentId: idOrSlug, enabled, ...changes } = input;
  if (enabled === undefined && Object.keys(changes).length === 0)
    throw badRequest("Nothing to change: send enabled and/or settings");
  const e = await resolveExperiment(p, idOrSlug);
  const row = await db().$transaction(async (tx) => {
    const before = await tx.simulationControl.findUnique({ where: { experimentId: e.id } });
    const merged = SimulationSettingsSchema.safeParse({ ...settingsOf(before), ...changes });
    if (!merged.success) throw fromZod(merged.error, "Invalid simulation settings");
    const data = {
      ...merged.data,
      enabled: enabled ?? before?.enabled ?? false,
      updatedById: actorUserId(p),
    };
    const after = await tx.simulationControl.upsert({
      where: { experimentId: e.id },
      create: { experimentId: e.id, ...data },
      update: data,
    });
    await audit(
      tx,
      p,
      "simulation.update",
      "experiment",
      e.id,
      before && { enabled: before.enabled, ...settingsOf(before) },
      { enabled: after.enabled, ...settingsOf(after) },
    );
    return after;
  });
  await notify(e.id);
  return {
    experimentId: e.id,
    enabled: row.enabled,
    settings: settingsOf(row),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function setGlobalSimulation(p: Principal, input: z.output<typeof SimulationGlobalInput>) {
  const row = await db().$transaction(async (tx) => {
    const before = await tx.simulationControl.findUnique({ where: { experimentId: GLOBAL_KEY } });
    const after = await tx.simulationControl.upsert({
      where: { experimentId: GLOBAL_KEY },
      create: { experimentId: GLOBAL_KEY, enabled: input.enabled, personas: [] },
      update: { enabled: input.enabled },
    });
    await audit(
      tx,
      p,
      "simulation.global",
      "simulation",
      GLOBAL_KEY,
      { enabled: before?.enabled ?? true },
      { enabled: after.enabled },
    );
    return after;
  });
  await notify(GLOBAL_KEY);
  return { globalEnabled: row.enabled, envEnabled: simulationAllowedByEnv() };
}

/** Seeding (first start): enable simulated users for an experiment without a principal (no audit actor). */
export async function enableSimulation(experimentId: string, settings: SimulationSettings): Promise<void> {
  const data = { ...SimulationSettingsSchema.parse(settings), enabled: true };
  await db().simulationControl.upsert({ where: { experimentId }, create: { experimentId, ...data }, update: data });
}

export interface VersionReward {
  version: number;
  /** judged main turns served by this version that have a next state */
  turns: number;
  /** mean judge score of those turns (−1…1) */
  reward: number;
  /** of those, the sessions' opening replies: the preference learned unprompted, before any correction or hint */
  firstTurns: number;
  /** their mean judge score; null when the version served no opening reply */
  firstReward: number | null;
  firstAt: string;
}

/** The version a turn `t` counts under: the policy version that served it, or (`byAdapter`) its end user's adapter's. */
export function turnVersionSql(byAdapter: boolean): Prisma.Sql {
  return byAdapter
    ? Prisma.sql`coalesce((SELECT ua.version FROM user_adapters ua WHERE ua.id = t."adapterId"), 0)`
    : Prisma.sql`t."policyVersion"`;
}

/**
 * Judged reward per policy version: the mean score of the main turns each version served that have a next
 * state (the latest judgment per turn), oldest version first, and the same over the sessions' first replies
 * only. The first replies are the headline: a reply right after "no — use a bullet list" has the instruction in
 * its context, so the mean over every reply credits a policy for following corrections, not for having learned.
 * Real and simulated traffic alike.
 */
export async function simulationProgress(p: Principal, input: z.output<typeof SimulationProgressInput>) {
  const e = await resolveExperiment(p, input.experimentId);
  // A per-user experiment never changes its shared policy (version 0 serves every turn): its versions are the users'
  // adapter versions, pooled over users (a turn's adapter, none: the base), so "since the base" means "since a user
  // was first served an adapter of their own".
  const byAdapter = ExperimentConfigSchema.parse(e.config).personalization === "per-user";
  const versionOf = turnVersionSql(byAdapter);
  const rewardByVersion = (only: Prisma.Sql, limit: number) => db().$queryRaw<
    {
      version: number;
      turns: number;
      reward: number;
      firstTurns: number;
      firstReward: number | null;
      firstAt: Date;
    }[]
  >`
    SELECT x.version, count(*)::int AS turns, avg(j.score)::float8 AS reward,
      count(*) FILTER (WHERE x.pos = 1)::int AS "firstTurns",
      (avg(j.score) FILTER (WHERE x.pos = 1))::float8 AS "firstReward",
      min(x."createdAt") AS "firstAt"
    FROM (
      -- Positions over every main turn of a session, before the judged filter: a session whose opening reply got
      -- no next state has no first reply here, rather than its second reply counted as one.
      SELECT t.id, ${versionOf} AS version, t.status, t."nextStateAt", t."createdAt",
        row_number() OVER (PARTITION BY t."sessionId" ORDER BY t.index) AS pos
      FROM turns t
      WHERE t."experimentId" = ${e.id} AND t."turnType" = 'MAIN'
    ) x
    JOIN LATERAL (SELECT score FROM judgments WHERE "turnId" = x.id ORDER BY "createdAt" DESC LIMIT 1) j ON true
    WHERE x.status = 'OK' AND x."nextStateAt" IS NOT NULL ${only}
    GROUP BY x.version
    ORDER BY x.version DESC
    LIMIT ${limit}`;
  // Version 0 separately: once more versions exist than are listed, the list no longer reaches the base.
  const [rows, baseRows, active, steps] = await Promise.all([
    rewardByVersion(Prisma.empty, input.versions),
    rewardByVersion(Prisma.sql`AND x.version = 0`, 1),
    db().policyVersion.findFirst({
      where: { experimentId: e.id, status: "ACTIVE" },
      orderBy: { version: "desc" },
      select: { version: true },
    }),
    // A per-user experiment trains no run: its steps are the users' adapter versions.
    byAdapter
      ? db().userAdapter.count({ where: { experimentId: e.id } })
      : db().trainingStep.count({ where: { run: { experimentId: e.id } } }),
  ]);
  const view = (r: (typeof rows)[number]): VersionReward => ({
    version: r.version,
    turns: r.turns,
    reward: r.reward,
    firstTurns: r.firstTurns,
    firstReward: r.firstReward,
    firstAt: r.firstAt.toISOString(),
  });
  const versions = rows.reverse().map(view);
  /** the base checkpoint's judged reward (version 0), null while none of its turns is judged */
  const base = baseRows[0] ? view(baseRows[0]) : null;
  return {
    experimentId: e.id,
    /** "adapter": versions are the end users' adapter versions (a per-user experiment), else the policy's */
    versionsOf: byAdapter ? ("adapter" as const) : ("policy" as const),
    servedVersion: active?.version ?? 0,
    steps,
    base,
    versions,
  };
}

export type SimulationList = Awaited<ReturnType<typeof listSimulations>>;
export type SimulationProgress = Awaited<ReturnType<typeof simulationProgress>>;
