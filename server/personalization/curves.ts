// The Users view's learning curves: each end user's mean judged reward per version that served them (their adapter
// versions in a per-user experiment, version 0 before their own: the base, or the shared adapter for new users;
// the shared policy's versions otherwise), beside the
// shared policy's curve (the mean judged reward of all main turns per policy version) of this experiment or of
// another one the caller may read (e.g. the same users on one shared policy: demo-shared-users beside demo-per-user).
// Unasked, a per-user experiment is drawn beside its twin: the shared-policy experiment the most of its users talk to.
import type { z } from "zod";
import { boundExperimentId, type Principal } from "../access/principal";
import { loadExperimentFor } from "../access/scope";
import { ExperimentConfigSchema } from "../config/experimentConfig";
import { db } from "../platform/db/client";
import type { EndUserCurvesInput } from "./schemas";

interface Row {
  endUserId: string;
  version: number;
  reward: number;
  turns: bigint;
  firstAt: Date;
}

const point = (r: Omit<Row, "endUserId">) => ({
  version: r.version,
  meanReward: r.reward,
  turns: Number(r.turns),
  firstAt: r.firstAt.toISOString(),
});

export async function endUserCurves(p: Principal, input: z.output<typeof EndUserCurvesInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  const perUser = ExperimentConfigSchema.parse(e.config).personalization === "per-user";
  const sharedId = input.sharedExperimentId ?? (perUser ? await sharedTwinOf(p, e.id) : null);
  const shared = sharedId ? await loadExperimentFor(p, sharedId) : e;
  const users = perUser
    ? await db().$queryRaw<Row[]>`
        SELECT t."endUserId", COALESCE(a.version, 0)::int AS version, avg(j.score)::float8 AS reward,
               count(DISTINCT t.id) AS turns, min(t."createdAt") AS "firstAt"
        FROM turns t JOIN judgments j ON j."turnId" = t.id
        LEFT JOIN user_adapters a ON a.id = t."adapterId" AND a."endUserId" = t."endUserId"
        WHERE t."experimentId" = ${e.id} AND t."endUserId" IS NOT NULL AND t."turnType" = 'MAIN'
        GROUP BY 1, 2 ORDER BY 1, 2`
    : await db().$queryRaw<Row[]>`
        SELECT t."endUserId", t."policyVersion" AS version, avg(j.score)::float8 AS reward, count(DISTINCT t.id) AS turns,
               min(t."createdAt") AS "firstAt"
        FROM turns t JOIN judgments j ON j."turnId" = t.id
        WHERE t."experimentId" = ${e.id} AND t."endUserId" IS NOT NULL AND t."turnType" = 'MAIN'
        GROUP BY 1, 2 ORDER BY 1, 2`;
  const sharedRows = await db().$queryRaw<Omit<Row, "endUserId">[]>`
    SELECT t."policyVersion" AS version, avg(j.score)::float8 AS reward, count(DISTINCT t.id) AS turns,
           min(t."createdAt") AS "firstAt"
    FROM turns t JOIN judgments j ON j."turnId" = t.id
    WHERE t."experimentId" = ${shared.id} AND t."turnType" = 'MAIN'
    GROUP BY 1 ORDER BY 1`;
  const byUser = new Map<string, ReturnType<typeof point>[]>();
  for (const r of users) byUser.set(r.endUserId, [...(byUser.get(r.endUserId) ?? []), point(r)]);
  return {
    /** what a user's version counts: their adapter's (per-user) or the shared policy's */
    versionOf: perUser ? ("adapter" as const) : ("policy" as const),
    shared: { experimentId: shared.id, name: shared.name, points: sharedRows.map(point) },
    users: [...byUser].map(([endUserId, points]) => ({ endUserId, points })),
  };
}

/**
 * The shared-policy experiment (not archived, not per-user) that the most of this experiment's end users also talk
 * to, newest first on a tie; null when none does or the caller's key is bound to one experiment (it may read no
 * other). Each candidate is counted through the turns' (experimentId, endUserId) index.
 */
async function sharedTwinOf(p: Principal, experimentId: string): Promise<string | null> {
  if (boundExperimentId(p)) return null;
  const rows = await db().$queryRaw<Array<{ id: string; users: number }>>`
    WITH mine AS (SELECT DISTINCT "endUserId" FROM turns WHERE "experimentId" = ${experimentId} AND "endUserId" IS NOT NULL)
    SELECT x.id, (SELECT count(*) FROM mine m WHERE EXISTS (
             SELECT 1 FROM turns t WHERE t."experimentId" = x.id AND t."endUserId" = m."endUserId"))::int AS users
    FROM experiments x
    WHERE x.id <> ${experimentId} AND x."archivedAt" IS NULL
      AND coalesce(x.config->>'personalization', '') <> 'per-user'
    ORDER BY users DESC, x."createdAt" DESC LIMIT 1`;
  return rows[0] && rows[0].users > 0 ? rows[0].id : null;
}
