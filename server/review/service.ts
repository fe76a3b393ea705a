// Review queues: fetch-next hands each reviewer one turn under a lock that expires, never one they have
// already seen, disputed turns first; N reviewers per item are allowed, never more at once. Locking is
// race-free: the candidate row is taken FOR UPDATE SKIP LOCKED, and its capacity is re-checked by a fresh
// statement while the row lock is held (every lock insert and submission happens under that row lock).
import type { z } from "zod";
import { db, type Prisma } from "../platform/db/client";
import { Prisma as P } from "../platform/db/generated/client";
import { audit } from "../access/audit";
import { assertExperimentAccess, type Principal, actorUserId } from "../access/principal";
import { badRequest, conflict, forbidden, notFound } from "../platform/errors";
import { authorizeRow, scopeExperiment } from "../access/scope";
import {
  DISPUTE_REASON_SQL,
  DISPUTED_SQL,
  TURN_FILTER_FROM,
  TURN_FROM,
  TURN_ORDER,
  turnWhere,
} from "../trajectories/query";
import { writeReviewerLabel } from "../labels/reviewerLabels";
import { effectiveLabelsForTurns } from "../labels/effective";
import { reviewerAgreement } from "./agreement";
import {
  QueueFilterSchema,
  type QueueAddTurnsInput,
  type QueueCreateInput,
  type QueueListInput,
  type QueueUpdateInput,
  type SubmitInput,
} from "./schemas";

type Tx = Prisma.TransactionClient;

/** UTC wall time, like every timestamp column Prisma writes. */
const NOW = P.sql`(now() AT TIME ZONE 'UTC')`;

/** How many turns one refill moves into a drained queue. */
const FILL_BATCH = 200;

async function userIdsByEmail(tx: Tx, emails: readonly string[]): Promise<string[]> {
  if (!emails.length) return [];
  const users = await tx.user.findMany({
    where: { email: { in: emails.map((e) => e.toLowerCase()) } },
    select: { id: true, email: true },
  });
  const missing = emails.filter((e) => !users.some((u) => u.email === e.toLowerCase()));
  if (missing.length)
    throw badRequest(
      `Unknown assignee: ${missing.join(", ")}`,
      missing.map((m) => ({ path: "assignees", message: `no user ${m}` })),
    );
  return users.map((u) => u.id);
}

function queueView(
  q: Prisma.ReviewQueueGetPayload<{ include: { assignees: { include: { user: { select: { email: true } } } } } }>,
) {
  return {
    id: q.id,
    experimentId: q.experimentId,
    name: q.name,
    description: q.description,
    filter: QueueFilterSchema.parse(q.filter),
    reviewersPerItem: q.reviewersPerItem,
    lockTtlS: q.lockTtlS,
    assignees: q.assignees.map((a) => a.user.email),
    createdAt: q.createdAt,
    archivedAt: q.archivedAt,
  };
}

const QUEUE_INCLUDE = {
  assignees: { include: { user: { select: { email: true } } } },
} satisfies Prisma.ReviewQueueInclude;

export async function createQueue(p: Principal, input: z.output<typeof QueueCreateInput>) {
  assertExperimentAccess(p, input.experimentId);
  return db().$transaction(async (tx) => {
    if (!(await tx.experiment.findUnique({ where: { id: input.experimentId }, select: { id: true } })))
      throw notFound("Experiment", input.experimentId);
    if (
      await tx.reviewQueue.findUnique({
        where: { experimentId_name: { experimentId: input.experimentId, name: input.name } },
      })
    ) {
      throw conflict(`A queue named '${input.name}' already exists in this experiment`);
    }
    const userIds = await userIdsByEmail(tx, input.assignees);
    const q = await tx.reviewQueue.create({
      data: {
        experimentId: input.experimentId,
        name: input.name,
        description: input.description,
        filter: input.filter as Prisma.InputJsonValue,
        reviewersPerItem: input.reviewersPerItem,
        lockTtlS: input.lockTtlS,
        createdById: actorUserId(p),
        assignees: { create: userIds.map((userId) => ({ userId })) },
      },
      include: QUEUE_INCLUDE,
    });
    const view = queueView(q);
    await audit(tx, p, "reviewQueue.create", "reviewQueue", q.id, null, view);
    return view;
  });
}

export async function updateQueue(p: Principal, input: z.output<typeof QueueUpdateInput>) {
  return db().$transaction(async (tx) => {
    const before = authorizeRow(
      p,
      "Review queue",
      input.id,
      await tx.reviewQueue.findUnique({ where: { id: input.id }, include: QUEUE_INCLUDE }),
      (r) => r.experimentId,
    );
    const userIds = input.assignees ? await userIdsByEmail(tx, input.assignees) : null;
    if (userIds) {
      await tx.reviewAssignee.deleteMany({ where: { queueId: input.id } });
      await tx.reviewAssignee.createMany({ data: userIds.map((userId) => ({ queueId: input.id, userId })) });
    }
    const after = await tx.reviewQueue.update({
      where: { id: input.id },
      data: {
        name: input.name,
        description: input.description,
        reviewersPerItem: input.reviewersPerItem,
        lockTtlS: input.lockTtlS,
        archivedAt: input.archived === undefined ? undefined : input.archived ? new Date() : null,
      },
      include: QUEUE_INCLUDE,
    });
    await audit(tx, p, "reviewQueue.update", "reviewQueue", input.id, queueView(before), queueView(after));
    return queueView(after);
  });
}

export async function listQueues(p: Principal, input: z.output<typeof QueueListInput>) {
  const experimentId = scopeExperiment(p, input.experimentId);
  const queues = await db().reviewQueue.findMany({
    where: { experimentId, archivedAt: input.includeArchived ? undefined : null },
    include: { ...QUEUE_INCLUDE, experiment: { select: { name: true } } },
    orderBy: { createdAt: "desc" },
  });
  if (!queues.length) return [];
  const counts = await db().$queryRaw<
    { queueId: string; pending: number; done: number; disputed: number; locked: number }[]
  >`
    SELECT i."queueId",
      (count(*) FILTER (WHERE i.status = 'PENDING'))::int AS pending,
      (count(*) FILTER (WHERE i.status = 'DONE'))::int AS done,
      (count(*) FILTER (WHERE i.status = 'PENDING' AND i.disputed))::int AS disputed,
      (count(*) FILTER (WHERE EXISTS (SELECT 1 FROM review_locks l WHERE l."itemId" = i.id AND l."expiresAt" > ${NOW})))::int AS locked
    FROM review_items i WHERE i."queueId" IN (${P.join(queues.map((q) => q.id))}) GROUP BY i."queueId"`;
  const waiting = await Promise.all(queues.map((q) => unqueuedMatches(q)));
  return queues.map((q, i) => {
    const c = counts.find((x) => x.queueId === q.id);
    const w = waiting[i]!;
    return {
      ...queueView(q),
      experimentName: q.experiment.name,
      pending: (c?.pending ?? 0) + w.pending,
      done: c?.done ?? 0,
      disputed: (c?.disputed ?? 0) + w.disputed,
      locked: c?.locked ?? 0,
    };
  });
}

/**
 * Turns that match the queue's filter but are not items yet: fetch-next moves them in lazily (FILL_BATCH at a
 * time), so counting items alone said "Pending 0" for a new queue whose filter matched 72 turns.
 */
async function unqueuedMatches(q: {
  id: string;
  experimentId: string;
  filter: unknown;
}): Promise<{ pending: number; disputed: number }> {
  const filter = { ...QueueFilterSchema.parse(q.filter), experimentId: q.experimentId };
  const [row] = await db().$queryRaw<{ pending: number; disputed: number }[]>`
    SELECT count(*)::int AS pending, (count(*) FILTER (WHERE ${DISPUTED_SQL}))::int AS disputed
    FROM ${TURN_FILTER_FROM}
    WHERE ${turnWhere(filter)} AND NOT EXISTS (SELECT 1 FROM review_items x WHERE x."queueId" = ${q.id} AND x."turnId" = f."turnId")`;
  return row ?? { pending: 0, disputed: 0 };
}

async function loadQueue(p: Principal, id: string, client: Tx | ReturnType<typeof db> = db()) {
  return authorizeRow(
    p,
    "Review queue",
    id,
    await client.reviewQueue.findUnique({ where: { id }, include: QUEUE_INCLUDE }),
    (r) => r.experimentId,
  );
}

export async function getQueue(p: Principal, id: string) {
  const q = await loadQueue(p, id);
  const [stats] = await listQueues(p, { experimentId: q.experimentId, includeArchived: true }).then((all) =>
    all.filter((x) => x.id === id),
  );
  return stats!;
}

function assertAssigned(q: { assignees: { userId: string }[] }, userId: string): void {
  if (q.assignees.length && !q.assignees.some((a) => a.userId === userId))
    throw forbidden("You are not assigned to this review queue");
}

/** Moves up to `limit` matching turns into the queue, disputed first, newest first. Returns how many. */
export async function fillQueue(
  tx: Tx,
  q: { id: string; experimentId: string; filter: unknown },
  limit = FILL_BATCH,
): Promise<number> {
  const filter = { ...QueueFilterSchema.parse(q.filter), experimentId: q.experimentId };
  return tx.$executeRaw`
    INSERT INTO review_items (id, "queueId", "turnId", disputed, "disputeReason")
    SELECT gen_random_uuid()::text, ${q.id}, f."turnId", ${DISPUTED_SQL}, ${DISPUTE_REASON_SQL}
    FROM ${TURN_FROM}
    WHERE ${turnWhere(filter)} AND NOT EXISTS (SELECT 1 FROM review_items x WHERE x."queueId" = ${q.id} AND x."turnId" = f."turnId")
    ORDER BY 4 DESC, ${TURN_ORDER}
    LIMIT ${limit}
    ON CONFLICT ("queueId", "turnId") DO NOTHING`;
}

export async function addTurns(p: Principal, input: z.output<typeof QueueAddTurnsInput>) {
  const q = await loadQueue(p, input.queueId);
  const added = await db().$executeRaw`
    INSERT INTO review_items (id, "queueId", "turnId", disputed, "disputeReason")
    SELECT gen_random_uuid()::text, ${q.id}, f."turnId", ${DISPUTED_SQL}, ${DISPUTE_REASON_SQL}
    FROM ${TURN_FROM}
    WHERE f."experimentId" = ${q.experimentId} AND f."turnId" IN (${P.join(input.turnIds)})
    ON CONFLICT ("queueId", "turnId") DO NOTHING`;
  return { added };
}

interface Claimed {
  itemId: string;
  expiresAt: Date;
}

/** Takes (or renews) `userId`'s lock on the item if the item still has room; the caller holds its row lock. */
async function lockIfRoom(
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
function reviewerId(p: Principal): string {
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
    if (q.archivedAt) throw conflict("This review queue is archived");
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

async function itemView(itemId: string, userId: string, lockExpiresAt: Date | null) {
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

/**
 * Records the reviewer's verdict as a reviewer label (audited, and what training uses from now on). The
 * reviewer must hold a live lock, or the item must still have room (their lock expired but nobody took it).
 */
export async function submitReview(p: Principal, input: z.output<typeof SubmitInput>) {
  let userId = "";
  const result = await db().$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ queueId: string; turnId: string; status: string }[]>`
      SELECT "queueId", "turnId", status::text FROM review_items WHERE id = ${input.itemId} FOR UPDATE`;
    if (!row) throw notFound("Review item", input.itemId);
    const q = await loadQueue(p, row.queueId, tx);
    userId = reviewerId(p);
    assertAssigned(q, userId);
    if (await tx.reviewSubmission.findUnique({ where: { itemId_userId: { itemId: input.itemId, userId } } })) {
      throw conflict("You already reviewed this item");
    }
    if (row.status !== "PENDING") throw conflict("This item already has all its reviews");
    if (!(await lockIfRoom(tx, input.itemId, userId, q.reviewersPerItem, q.lockTtlS))) {
      throw conflict("Your lock on this item expired and other reviewers took it");
    }
    const current = (await effectiveLabelsForTurns([row.turnId], tx)).get(row.turnId);
    const value =
      input.verdict === "ACCEPT"
        ? clampVote(current?.value ?? input.value ?? 0)
        : (input.value ?? clampVote(current?.value ?? 0));
    // Reject forces exclusion; Fix may force (true) or lift (false) it; Accept leaves the dispatch's decision alone.
    const exclude = input.verdict === "REJECT" ? true : input.verdict === "ACCEPT" ? null : (input.exclude ?? null);
    const hint = input.verdict === "FIX" ? input.hint : undefined;
    const { label, after } = await writeReviewerLabel(
      tx,
      p,
      { turnId: row.turnId, value, hint, exclude, comment: input.comment ?? `review: ${input.verdict.toLowerCase()}` },
      { via: "review", queueId: q.id, itemId: input.itemId, verdict: input.verdict },
    );
    await tx.reviewSubmission.create({
      data: {
        itemId: input.itemId,
        userId,
        verdict: input.verdict,
        value,
        hint: label.hint,
        exclude: exclude === true,
        labelId: label.id,
      },
    });
    await tx.reviewSeen.upsert({
      where: { itemId_userId: { itemId: input.itemId, userId } },
      create: { itemId: input.itemId, userId, action: "submitted" },
      update: { action: "submitted", at: new Date() },
    });
    await tx.reviewLock.deleteMany({ where: { itemId: input.itemId, userId } });
    const [updated] = await tx.$queryRaw<{ submittedCount: number }[]>`
      UPDATE review_items SET "submittedCount" = "submittedCount" + 1,
        status = CASE WHEN "submittedCount" + 1 >= ${q.reviewersPerItem}::int THEN 'DONE'::"ReviewItemStatus" ELSE status END,
        "completedAt" = CASE WHEN "submittedCount" + 1 >= ${q.reviewersPerItem}::int THEN ${NOW} ELSE "completedAt" END
      WHERE id = ${input.itemId} RETURNING "submittedCount"`;
    return { labelId: label.id, training: after ?? null, submittedCount: updated!.submittedCount };
  });
  return { ...result, item: await itemView(input.itemId, userId, null) };
}

function clampVote(v: number): -1 | 0 | 1 {
  return v > 0 ? 1 : v < 0 ? -1 : 0;
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
