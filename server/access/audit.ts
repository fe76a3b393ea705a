import type { Prisma } from "../platform/db/client";
import { actorOf, type Principal } from "./principal";

type Tx = Prisma.TransactionClient;

/** Written inside the mutation's transaction: no change without its audit entry, and vice versa. */
export async function audit(
  tx: Tx,
  actor: Principal | null,
  action: string,
  resourceType: string,
  resourceId: string | null,
  before: unknown,
  after: unknown,
): Promise<void> {
  const who = actor ? actorOf(actor) : { actorUserId: null, actorKeyId: null };
  await tx.auditLog.create({
    data: {
      ...who,
      action,
      resourceType,
      resourceId,
      before: toJson(before),
      after: toJson(after),
    },
  });
}

function toJson(v: unknown): Prisma.InputJsonValue | undefined {
  if (v === undefined || v === null) return undefined;
  return JSON.parse(JSON.stringify(v)) as Prisma.InputJsonValue;
}
