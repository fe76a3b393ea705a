// Review queues: a named filter over an experiment's turns, its assignees and how many reviewers each item
// needs. Turns move in as items lazily (fetch-next refills a drained queue, FILL_BATCH at a time), so a queue's
// counts add the matching turns that are not items yet. Claims (claims.ts) and submissions (submission.ts)
// load their queue through loadQueue here.
import type { z } from "zod";
import { db, type Prisma } from "../platform/db/client";
import { Prisma as P } from "../platform/db/generated/client";
import { audit } from "../access/audit";
import { assertExperimentAccess, type Principal, actorUserId } from "../access/principal";
import { appError, badRequest, notFound } from "../platform/errors";
import { authorizeRow, scopeExperiment } from "../access/scope";
import {
  DISPUTE_REASON_SQL,
  DISPUTED_SQL,
  TURN_FILTER_FROM,
  TURN_FROM,
  TURN_ORDER,
  turnWhere,
} from "../trajectories/query";
import {
  QueueFilterSchema,
  type QueueAddTurnsInput,
  type QueueCreateInput,
  type QueueListInput,
  type QueueUpdateInput,
} from "./schemas";

export type Tx = Prisma.TransactionClient;

/** UTC wall time, like every timestamp column Prisma writes. */
export const NOW = P.sql`(now() AT TIME ZONE 'UTC')`;

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
      throw appError("name_taken", `A queue named '${input.name}' already exists in this experiment`);
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

export async function loadQueue(p: Principal, id: string, client: Tx | ReturnType<typeof db> = db()) {
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

export function assertAssigned(q: { assignees: { userId: string }[] }, userId: string): void {
  if (q.assignees.length && !q.assignees.some((a) => a.userId === userId))
    throw appError("not_assigned", "You are not assigned to this review queue");
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
