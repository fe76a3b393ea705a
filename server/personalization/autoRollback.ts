// Per-user auto-rollback: the experiment's `serving.autoRollback` rule, applied to each user's served adapter on
// that user's own live turns. A version whose judged reward, over the turns it served this user, fell below its
// parent's (or, for a first version, the base's turns of this user) by more than the margin — with at least
// `minTurns` judged turns each — is rolled back (rollback.ts: the parent serves again), audited
// `endUser.autoRollback` with the reason, and announced so every proxy drops the route. The decision is the shared
// policy's (policyVersions/rollbackRule.ts decideRollback, one definition); the live reward counts the same turns as its
// liveRewards (main, answered, next state seen, the latest judgment), restricted to the user and grouped by the
// adapter that served them (turns.adapterId; null: the base).
import { decideRollback, type LiveReward } from "../policyVersions/rollbackRule";
import { db } from "../platform/db/client";
import { announceAdapterChange } from "./announce";
import { activePerUserExperiments } from "./experiments";
import { rollbackServedAdapter } from "./rollback";
import { EVERYONE } from "../config/experimentConfig";

export interface UserRollbackCheck {
  experimentId: string;
  endUserId: string;
  version: number;
  rolledBack: boolean;
  reason: string;
}

/**
 * Judged turns and mean reward of one user's turns (every user's for the shared adapter of new users, EVERYONE) per
 * serving adapter (key "" = the base).
 */
async function userLiveRewards(experimentId: string, endUserId: string, adapterIds: readonly string[]) {
  const rows = await db().$queryRaw<{ adapter: string; turns: number; reward: number }[]>`
    SELECT coalesce(t."adapterId", '') AS adapter, count(*)::int AS turns, avg(j.score)::float8 AS reward
    FROM turns t
    JOIN LATERAL (SELECT score FROM judgments WHERE "turnId" = t.id ORDER BY "createdAt" DESC LIMIT 1) j ON true
    WHERE t."experimentId" = ${experimentId}
      AND (t."endUserId" = ${endUserId} OR (${endUserId} = ${EVERYONE} AND t."endUserId" IS NOT NULL))
      AND t."turnType" = 'MAIN' AND t.status = 'OK' AND t."nextStateAt" IS NOT NULL
      AND coalesce(t."adapterId", '') = ANY(${[...adapterIds]}::text[])
    GROUP BY 1`;
  return new Map(rows.map((r) => [r.adapter, r]));
}

/** Check every served adapter of the active per-user experiments with auto-rollback on (all, or these). */
export async function checkUserAutoRollbacks(experimentIds: readonly string[] = []): Promise<UserRollbackCheck[]> {
  const out: UserRollbackCheck[] = [];
  for (const e of await activePerUserExperiments(experimentIds)) {
    const rule = e.config.serving.autoRollback;
    if (!rule.enabled) continue;
    const served = await db().userAdapter.findMany({
      where: { experimentId: e.id, state: "PROMOTED" },
      select: { id: true, endUserId: true, version: true, parentId: true, parent: { select: { version: true } } },
    });
    for (const a of served) {
      const previousKey = a.parentId ?? "";
      const rewards = await userLiveRewards(e.id, a.endUserId, [a.id, previousKey]);
      const live = (key: string, version: number): LiveReward => ({
        version,
        turns: rewards.get(key)?.turns ?? 0,
        reward: rewards.get(key)?.reward ?? 0,
      });
      const d = decideRollback({
        served: live(a.id, a.version),
        previous: live(previousKey, a.parent?.version ?? 0),
        margin: rule.margin,
        minTurns: rule.minTurns,
      });
      let rolledBack = false;
      if (d.rollback) {
        // Only the version decided about: a newer one promoted meanwhile is left to its own check.
        const done = await db().$transaction((tx) =>
          rollbackServedAdapter(tx, null, e.id, a.endUserId, {
            action: "endUser.autoRollback",
            why: { reason: d.reason },
            onlyIf: a.id,
          }),
        );
        rolledBack = done !== null;
        if (rolledBack) announceAdapterChange(e.id, a.endUserId);
      }
      out.push({ experimentId: e.id, endUserId: a.endUserId, version: a.version, rolledBack, reason: d.reason });
    }
  }
  return out;
}
