// Sessions until a stable effect (upstream's personal-agent metric), from each session's judged first reply: one
// definition for the experiment's learning report (per simulated persona) and the Users page (per end user).
import { db } from "../platform/db/client";

/**
 * Each session's first main reply, judged (latest judgment), oldest session first: did it meet the preference? With
 * the simulated persona and the end user it served (the Users page's sessions until a stable effect, per user).
 */
export async function firstReplyBySession(experimentId: string) {
  return db().$queryRaw<{ persona: string | null; endUserId: string | null; held: boolean }[]>`
    SELECT s.persona, f."endUserId", (j.score > 0) AS held
    FROM agent_sessions s
    JOIN LATERAL (
      SELECT t.id, t."endUserId" FROM turns t WHERE t."sessionId" = s.id AND t."turnType" = 'MAIN'
      ORDER BY t.index LIMIT 1
    ) f ON true
    JOIN LATERAL (SELECT score FROM judgments WHERE "turnId" = f.id ORDER BY "createdAt" DESC LIMIT 1) j ON true
    WHERE s."experimentId" = ${experimentId}
    ORDER BY s."createdAt", s.id`;
}

/**
 * Sessions until a stable effect (upstream's personal-agent metric): the number of sessions before the first run
 * of three consecutive sessions whose first reply met the preference (judged > 0). Null while no such run exists.
 * `held` is per session, oldest first.
 */
export function sessionsUntilStable(held: readonly boolean[], run = 3): number | null {
  let streak = 0;
  for (const [i, ok] of held.entries()) {
    streak = ok ? streak + 1 : 0;
    if (streak === run) return i + 1 - run;
  }
  return null;
}
