// The per-user scheduler's tick, run by the train worker (workers/train/perUser.ts): every active per-user
// experiment (of this worker's shard) trains each user with enough new samples once. Users are taken in order
// and each gets at most one new version per tick, so no user waits behind another's backlog for more than a tick.
import { db } from "../platform/db/client";
import { trainDueUsers, type TrainUserResult } from "./train";

export async function perUserTick(
  experimentIds: readonly string[] = [],
): Promise<Record<string, Record<string, TrainUserResult>>> {
  const experiments = await db().experiment.findMany({
    where: {
      status: "ACTIVE",
      config: { path: ["personalization"], equals: "per-user" },
      ...(experimentIds.length ? { id: { in: [...experimentIds] } } : {}),
    },
    select: { id: true },
    orderBy: { createdAt: "asc" },
  });
  const out: Record<string, Record<string, TrainUserResult>> = {};
  for (const e of experiments) out[e.id] = await trainDueUsers(e.id);
  return out;
}
