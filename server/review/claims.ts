// Claims: fetch-next hands each reviewer one turn under a lock that expires, never one they have already seen,
// disputed turns first; N reviewers per item are allowed, never more at once. Locking is race-free: the
// candidate row is taken FOR UPDATE SKIP LOCKED, and its capacity is re-checked by a fresh statement while the
// row lock is held (every lock insert and submission happens under that row lock).
import { db } from "../platform/db/client";
import { Prisma as P } from "../platform/db/generated/client";
import { type Principal, actorUserId } from "../access/principal";
import { appError, forbidden, notFound } from "../platform/errors";
import { reviewerAgreement } from "./agreement";
import { assertAssigned, fillQueue, loadQueue, NOW, type Tx } from "./queues";

interface Claimed {
  itemId: string;
  expiresAt: Date;
}

/** Takes (or renews) `userId`'s lock on the item if the item still has room; the caller holds its row lock. */
export async function lockIfRoom(
  tx: Tx,
  itemId: string,
  userId: string,
  reviewersPerItem: number,
  ttlS: number,
): Promise<Claimed | null> {
  const [room] = await tx.$queryRaw<{ ok: boolean }[]>`
    SELECT i.status = 'PENDING'
       AND NOT EXISTS (SELECT 1 FROM review_submissions s WHERE s."itemId" = i.id AND s."userId" = ${userId})
       AND i."submittedCount" + (SELECT count(*) FROM review_locks l WHERE l."itemId" = i.id AND l."userId" <> ${userId} AND l."expiresAt" > ${NOW}) < ${reviewersPerItem}::int AS ok
    FROM review_items i WHERE i.id = ${itemId}`;
  if (!room?.ok) return null;
  const [lock] = await tx.$queryRaw<{ expiresAt: Date }[]>`
    INSERT INTO review_locks ("itemId", "userId", "expiresAt") VALUES (${itemId}, ${userId}, ${NOW} + make_interval(secs => ${ttlS}::int))
    ON CONFLICT ("itemId", "userId") DO UPDATE SET "expiresAt" = excluded."expiresAt", "createdAt" = ${NOW}
    RETURNING "expiresAt"`;
  return { itemId, expiresAt: lock!.expiresAt };
}

/** Locks, seen marks and submissions belong to a person: a key acts for the user who created it. */
export function reviewerId(p: Principal): string {
  const id = actorUserId(p);
  if (id) return id;
  throw forbidden("Reviewing needs a person: sign in, or use an API key created by a user");
}

/**
 * The reviewer's next item: the one they already hold (lock renewed), else the first pending item they have
 * not seen that still has room (disputed first), refilling the queue from its filter when it runs dry.
 */
export async function fetchNext(p: Principal, queueId: string) {
  let userId = "";
  const claimed = await db().$transaction(async (tx): Promise<Claimed | null> => {
    const q = await loadQueue(p, queueId, tx);
    userId = reviewerId(p);
    if (q.archivedAt) throw appError("archived", "This review queue is archived");
    assertAssigned(q, userId);
    // One fetch at a time per reviewer and queue (double clicks, two tabs): each holds at most one item.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`review:${queueId}:${userId}`}))`;
    const [held] = await tx.$queryRaw<{ id: string }[]>`
      SELECT i.id FROM review_locks l JOIN review_items i ON i.id = l."itemId"
      WHERE l."userId" = ${userId} AND i."queueId" = ${queueId} AND i.status = 'PENDING' AND l."expiresAt" > ${NOW}
        AND NOT EXISTS (SELECT 1 FROM review_seen s WHERE s."itemId" = i.id AND s."userId" = ${userId})
      ORDER BY l."createdAt" LIMIT 1
      FOR UPDATE OF i`;
    if (held) {
      const renewed = await lockIfRoom(tx, held.id, userId, q.reviewersPerItem, q.lockTtlS);
      if (renewed) return renewed;
    }
    const passed: string[] = [];
    let refilled = false;
    for (let attempt = 0; attempt < 20; attempt++) {
      const [candidate] = await tx.$queryRaw<{ id: string }[]>`
        SELECT i.id FROM review_items i JOIN turns t ON t.id = i."turnId"
        WHERE i."queueId" = ${queueId} AND i.status = 'PENDING'
          AND NOT EXISTS (SELECT 1 FROM review_seen s WHERE s."itemId" = i.id AND s."userId" = ${userId})
          AND i."submittedCount" + (SELECT count(*) FROM review_locks l WHERE l."itemId" = i.id AND l."userId" <> ${userId} AND l."expiresAt" > ${NOW}) < ${q.reviewersPerItem}::int
          ${passed.length ? P.sql`AND i.id NOT IN (${P.join(passed)})` : P.empty}
        ORDER BY i.disputed DESC, i."createdAt" ASC, t."createdAt" DESC, i.id
        LIMIT 1
        FOR UPDATE OF i SKIP LOCKED`;
      if (!candidate) {
        if (refilled) return null;
        // Look again even when this fill added nothing: a concurrent fill may just have committed the items.
        await fillQueue(tx, q);
        refilled = true;
        continue;
      }
      // The row lock is ours now; a fresh statement sees every lock committed before we got it.
      const got = await lockIfRoom(tx, candidate.id, userId, q.reviewersPerItem, q.lockTtlS);
      if (got) return got;
      passed.push(candidate.id);
    }
    return null;
  });
  if (!claimed) return null;
  return itemView(claimed.itemId, userId, claimed.expiresAt);
}

export async function itemView(itemId: string, userId: string, lockExpiresAt: Date | null) {
  const item = await db().reviewItem.findUniqueOrThrow({
    where: { id: itemId },
    include: {
      queue: { select: { id: true, name: true, reviewersPerItem: true, experimentId: true } },
      submissions: { include: { user: { select: { email: true } } }, orderBy: { createdAt: "asc" } },
    },
  });
  const mine = item.submissions.find((s) => s.userId === userId) ?? null;
  // Others' verdicts stay hidden until you have given yours (no anchoring), or the item is complete.
  const reveal = mine !== null || item.status === "DONE";
  return {
    id: item.id,
    turnId: item.turnId,
    queue: item.queue,
    disputed: item.disputed,
    disputeReason: item.disputeReason,
    status: item.status,
    submittedCount: item.submittedCount,
    lockExpiresAt,
    mine: mine && { verdict: mine.verdict, value: mine.value, hint: mine.hint, exclude: mine.exclude },
    submissions: reveal
      ? item.submissions.map((s) => ({
          reviewer: s.user.email,
          verdict: s.verdict,
          value: s.value,
          exclude: s.exclude,
          hint: s.hint,
          createdAt: s.createdAt,
        }))
      : [],
    agreement: reveal ? reviewerAgreement(item.submissions.map((s) => (s.exclude ? "x" : String(s.value)))) : null,
  };
}

/** Opens a given item (e.g. going back with k): claims it if it has room, else shows it read-only. */
export async function openItem(p: Principal, itemId: string) {
  let userId = "";
  const claimed = await db().$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<
      { queueId: string }[]
    >`SELECT "queueId" FROM review_items WHERE id = ${itemId} FOR UPDATE`;
    if (!row) throw notFound("Review item", itemId);
    const q = await loadQueue(p, row.queueId, tx);
    userId = reviewerId(p);
    assertAssigned(q, userId);
    const got = await lockIfRoom(tx, itemId, userId, q.reviewersPerItem, q.lockTtlS);
    // Reopened on purpose: it is no longer "seen" (skipped) for fetch-next.
    if (got) await tx.reviewSeen.deleteMany({ where: { itemId, userId, action: "skipped" } });
    return got;
  });
  return itemView(itemId, userId, claimed?.expiresAt ?? null);
}

/** Passes on an item: marked seen (fetch-next will not offer it again) and unlocked for others. */
export async function skipItem(p: Principal, itemId: string) {
  await db().$transaction(async (tx) => {
    const item = await tx.reviewItem.findUnique({ where: { id: itemId }, select: { queueId: true } });
    if (!item) throw notFound("Review item", itemId);
    await loadQueue(p, item.queueId, tx);
    const userId = reviewerId(p);
    await tx.reviewSeen.upsert({
      where: { itemId_userId: { itemId, userId } },
      create: { itemId, userId, action: "skipped" },
      update: {},
    });
    await tx.reviewLock.deleteMany({ where: { itemId, userId } });
  });
  return { ok: true };
}

/** Gives the lock back without marking the item seen (leaving the page). */
export async function releaseItem(p: Principal, itemId: string) {
  const item = await db().reviewItem.findUnique({ where: { id: itemId }, select: { queueId: true } });
  if (!item) throw notFound("Review item", itemId);
  await loadQueue(p, item.queueId);
  const userId = reviewerId(p);
  await db().reviewLock.deleteMany({ where: { itemId, userId } });
  return { ok: true };
}

/** The reviewer's recent items in a queue (for going back with k), newest first. */
export async function myHistory(p: Principal, queueId: string, limit = 50) {
  await loadQueue(p, queueId);
  const userId = reviewerId(p);
  const rows = await db().reviewSeen.findMany({
    where: { userId, item: { queueId } },
    orderBy: { at: "desc" },
    take: limit,
    select: { itemId: true, action: true, at: true, item: { select: { turnId: true } } },
  });
  return rows.map((r) => ({ itemId: r.itemId, turnId: r.item.turnId, action: r.action, at: r.at }));
}
