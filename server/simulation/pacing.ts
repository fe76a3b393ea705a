// Backpressure from the trainer to the simulated users. Left to their rate, the demo's users (24 conversations a
// minute, on 2 shared cores) record about three times the turns the embedded trainer can take, and the trainer takes
// the oldest ones first (training/samples.ts nextBatch), so every batch was served `maxStaleness` versions ago and the
// rest is dropped as stale: the live demo learned off-policy, and its serving CPU went into replies nobody trained on.
// Lockstep (bench/lib/lockstep.ts), which the learning bench measures, trains on replies of the version it updates.
// So a simulated user starts a conversation only while the experiment's running embedded run has less than a batch of
// turns waiting for a step (judged or not yet): the trainer is never short of a batch, and the batch is fresh.
import { z } from "zod";
import { db } from "../platform/db/client";
import { Prisma } from "../platform/db/generated/client";

/** Turns that old and still untrained are left out of the count: a turn that is never judged cannot hold the users. */
export const PACING_WINDOW_MS = 10 * 60_000;

const BacklogRow = z.object({ experimentId: z.string(), batchSize: z.number().int(), waiting: z.number().int() });
export type TrainerBacklog = z.output<typeof BacklogRow>;

/**
 * Per experiment with a RUNNING embedded run: its main turns (recorded in the last PACING_WINDOW_MS) that no step has
 * trained and that the trainer has not excluded (a turn not yet judged counts: it is on its way into a batch), against
 * the run's batch size. Experiments without such a run (per-user, external trainers, paused) are absent: not paced.
 */
export async function trainerBacklogs(experimentIds: readonly string[], now = new Date()): Promise<TrainerBacklog[]> {
  if (!experimentIds.length) return [];
  const since = new Date(now.getTime() - PACING_WINDOW_MS);
  const rows = await db().$queryRaw<unknown[]>`
    SELECT r."experimentId", COALESCE((r.config->'hyper'->>'batchSize')::int, 16) AS "batchSize",
      (SELECT count(*)::int FROM turns t
        WHERE t."experimentId" = r."experimentId" AND t."turnType" = 'MAIN' AND t.status = 'OK'
          AND t."createdAt" >= GREATEST(r."createdAt", ${since})
          AND (t."runId" = r.id OR t."runId" IS NULL)
          AND NOT EXISTS (SELECT 1 FROM samples s WHERE s."runId" = r.id AND s."turnId" = t.id
                            AND (s."stepId" IS NOT NULL OR s.excluded))) AS waiting
    FROM runs r
    WHERE r.status = 'RUNNING' AND r."trainerBackend" = 'embedded' AND r."experimentId" IN (${Prisma.join([...experimentIds])})`;
  return z.array(BacklogRow).parse(rows);
}

/** Whether new conversations may start: no running embedded run, or less than a batch waiting for it. */
export function mayStart(backlog: TrainerBacklog | undefined): boolean {
  return !backlog || backlog.waiting < backlog.batchSize;
}
