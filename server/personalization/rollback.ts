// Rolling one user back from their served adapter, in the caller's transaction: the by-hand rollback (service.ts,
// the Users page and API) and the automatic one (autoRollback.ts) are the same change, audited under their own
// action names.
import { audit } from "../access/audit";
import type { Principal } from "../access/principal";
import type { Prisma } from "../platform/db/client";

export interface UserRollback {
  /** the version taken off */
  rolledBack: number;
  /** the version served again (its parent), or null: the user is served the base */
  served: number | null;
}

/**
 * The user's served version becomes ROLLED_BACK and its parent (the version it replaced, SUPERSEDED) serves again;
 * a first version rolls the user back to the base. `onlyIf` names the version the caller decided about: when
 * another one is served by now, nothing changes (null). The caller announces the change once its transaction commits.
 */
export async function rollbackServedAdapter(
  tx: Prisma.TransactionClient,
  actor: Principal | null,
  experimentId: string,
  endUserId: string,
  how: { action: string; why?: Record<string, unknown>; onlyIf?: string },
): Promise<UserRollback | null> {
  const served = await tx.userAdapter.findFirst({
    where: { experimentId, endUserId, state: "PROMOTED" },
    orderBy: { version: "desc" },
  });
  if (!served || (how.onlyIf && served.id !== how.onlyIf)) return null;
  await tx.userAdapter.update({ where: { id: served.id }, data: { state: "ROLLED_BACK", decidedAt: new Date() } });
  const parent = served.parentId ? await tx.userAdapter.findUnique({ where: { id: served.parentId } }) : null;
  const restored = parent && parent.state === "SUPERSEDED" ? parent : null;
  if (restored) await tx.userAdapter.update({ where: { id: restored.id }, data: { state: "PROMOTED" } });
  const after = { rolledBack: served.version, served: restored?.version ?? null };
  await audit(tx, actor, how.action, "UserAdapter", served.id, { served: served.version }, { ...after, ...how.why });
  return after;
}
