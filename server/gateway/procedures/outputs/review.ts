// Output schemas of the review procedures: a queue's view (queues.ts queueView) and an item's view (claims.ts
// itemView), each written once.
import { z } from "zod";
import { Num } from "./common";
import { TrainingLabel } from "./trajectories";

const Verdict = z.enum(["ACCEPT", "FIX", "REJECT"]);

const QueueView = z.object({
  id: z.string(),
  experimentId: z.string(),
  name: z.string(),
  description: z.string(),
  filter: z.object({
    status: z.enum(["FAILED", "OK"]).optional(),
    agreement: z.enum(["split", "unanimous"]).optional(),
    policyVersion: Num.optional(),
    runId: z.string().optional(),
    sessionId: z.string().optional(),
    from: z.date().optional(),
    to: z.date().optional(),
    turnType: z.enum(["MAIN", "SIDE"]).optional(),
    score: z.enum(["0", "1", "-1", "unjudged"]).optional(),
    relabeled: z.boolean().optional(),
    disputed: z.boolean().optional(),
    q: z.string().optional(),
  }),
  reviewersPerItem: Num,
  lockTtlS: Num,
  assignees: z.array(z.string()),
  createdAt: z.date(),
  archivedAt: z.date().nullable(),
});

/** A queue with its counts (listQueues). */
const QueueStats = QueueView.extend({
  experimentName: z.string(),
  pending: Num,
  done: Num,
  disputed: Num,
  locked: Num,
});

const ItemView = z.object({
  id: z.string(),
  turnId: z.string(),
  queue: z.object({ id: z.string(), name: z.string(), experimentId: z.string(), reviewersPerItem: Num }),
  disputed: z.boolean(),
  disputeReason: z.string().nullable(),
  status: z.enum(["PENDING", "DONE"]),
  submittedCount: Num,
  lockExpiresAt: z.date().nullable(),
  mine: z.object({ verdict: Verdict, value: Num, hint: z.string().nullable(), exclude: z.boolean() }).nullable(),
  submissions: z.array(
    z.object({
      reviewer: z.string(),
      verdict: Verdict,
      value: Num,
      exclude: z.boolean(),
      hint: z.string().nullable(),
      createdAt: z.date(),
    }),
  ),
  agreement: z.object({ reviewers: Num, agreeing: Num, ratio: Num }).nullable(),
});

export const ReviewQueuesOutput = z.array(QueueStats);

export const ReviewQueueOutput = QueueStats;

export const ReviewCreateQueueOutput = QueueView;

export const ReviewUpdateQueueOutput = QueueView;

export const ReviewAddTurnsOutput = z.object({ added: Num });

export const ReviewNextOutput = ItemView.nullable();

export const ReviewOpenOutput = ItemView;

export const ReviewSkipOutput = z.object({ ok: z.boolean() });

export const ReviewReleaseOutput = z.object({ ok: z.boolean() });

export const ReviewSubmitOutput = z.object({
  item: ItemView,
  labelId: z.string(),
  training: TrainingLabel.nullable(),
  submittedCount: Num,
});

export const ReviewHistoryOutput = z.array(
  z.object({ itemId: z.string(), turnId: z.string(), action: z.string(), at: z.date() }),
);
