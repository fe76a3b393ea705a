// Turns waiting for the judge, per experiment and judge version, straight from Postgres (the source of
// truth), so a lost or never-sent queue message still shows up here. A ready turn (recording/readiness)
// waits until a judgment under the experiment's current judge version exists. Times are compared inside Postgres (columns
// hold UTC wall time), so the app's and the database's time zones never mix.
import { db } from "../../platform/db/client";
import { Prisma } from "../../platform/db/generated/client";
import { ExperimentConfigSchema } from "../../config/experimentConfig";
import { expectedJudgeVersion } from "./settings";
import type { Backlog } from "./metrics";
import { READY_AT, READY_TO_JUDGE } from "../../recording/readiness";

function unjudgedWhere(experimentId: string, judgeVersion: string): Prisma.Sql {
  return Prisma.sql`
    t."experimentId" = ${experimentId} AND ${Prisma.raw(READY_TO_JUDGE)}
    AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j."turnId" = t.id AND j."judgeVersion" = ${judgeVersion})`;
}

export async function backlogOf(experimentId: string, judgeVersion: string): Promise<Backlog> {
  const rows = await db().$queryRaw<{ depth: number; lagMs: number }[]>`
    SELECT count(*)::int AS depth,
           GREATEST(0, COALESCE(EXTRACT(EPOCH FROM ((now() AT TIME ZONE 'UTC') - MIN(${Prisma.raw(READY_AT)}))) * 1000, 0))::float8 AS "lagMs"
    FROM turns t JOIN agent_sessions s ON s.id = t."sessionId"
    WHERE ${unjudgedWhere(experimentId, judgeVersion)}`;
  return { depth: rows[0]?.depth ?? 0, lagMs: Math.round(rows[0]?.lagMs ?? 0) };
}

/** Ready, unjudged turns that have waited at least `minAgeMs`, oldest first. */
export async function staleUnjudgedTurns(
  experimentId: string,
  judgeVersion: string,
  minAgeMs: number,
  limit: number,
): Promise<string[]> {
  const rows = await db().$queryRaw<{ id: string }[]>`
    SELECT t.id FROM turns t JOIN agent_sessions s ON s.id = t."sessionId"
    WHERE ${unjudgedWhere(experimentId, judgeVersion)}
      AND ${Prisma.raw(READY_AT)} <= (now() AT TIME ZONE 'UTC') - make_interval(secs => ${minAgeMs / 1000}::float8)
    ORDER BY ${Prisma.raw(READY_AT)} ASC LIMIT ${limit}`;
  return rows.map((r) => r.id);
}

export type JudgedExperiment = { id: string; judgeVersion: string };

/** Active experiments (optionally only `ids`) with the judge version their current config gives. */
export async function activeExperiments(ids?: readonly string[]): Promise<JudgedExperiment[]> {
  const rows = await db().experiment.findMany({
    where: { status: "ACTIVE", ...(ids ? { id: { in: [...ids] } } : {}) },
    select: { id: true, config: true },
  });
  return rows.flatMap((e) => {
    const parsed = ExperimentConfigSchema.safeParse(e.config);
    return parsed.success ? [{ id: e.id, judgeVersion: expectedJudgeVersion(parsed.data) }] : [];
  });
}
