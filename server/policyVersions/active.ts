// The version an experiment serves (and the trainer trains from): its ACTIVE PolicyVersion, or version 0
// (the configured base checkpoint) when there is none.
import type { Prisma } from "../platform/db/client";
import { db } from "../platform/db/client";

type Reader = Pick<Prisma.TransactionClient, "policyVersion">;

export interface ActiveVersion {
  version: number;
  /** null for version 0: the experiment's `policy.checkpoint` */
  checkpointPath: string | null;
  id: string | null;
}

export async function activeVersion(experimentId: string, client: Reader = db()): Promise<ActiveVersion> {
  const row = await client.policyVersion.findFirst({
    where: { experimentId, status: "ACTIVE" },
    orderBy: { version: "desc" },
    select: { id: true, version: true, checkpointPath: true },
  });
  return row ?? { version: 0, checkpointPath: null, id: null };
}

/** The next version number of an experiment (versions never repeat, whatever their status). */
export async function nextVersion(experimentId: string, client: Reader = db()): Promise<number> {
  const agg = await client.policyVersion.aggregate({ where: { experimentId }, _max: { version: true } });
  return (agg._max.version ?? 0) + 1;
}
