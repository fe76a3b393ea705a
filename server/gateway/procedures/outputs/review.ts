// Output schemas of the review procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";
import { Num } from "./common";

export const ReviewQueuesOutput = z.array(
  z.object({
    experimentName: z.string(),
    pending: Num,
    done: Num,
    disputed: Num,
    locked: Num,
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
  }),
);

export const ReviewQueueOutput = z.object({
  experimentName: z.string(),
  pending: Num,
  done: Num,
  disputed: Num,
  locked: Num,
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

export const ReviewCreateQueueOutput = z.object({
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

export const ReviewUpdateQueueOutput = z.object({
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

export const ReviewAddTurnsOutput = z.object({ added: Num });

export const ReviewNextOutput = z
  .object({
    id: z.string(),
    turnId: z.string(),
    queue: z.object({ id: z.string(), name: z.string(), experimentId: z.string(), reviewersPerItem: Num }),
    disputed: z.boolean(),
    disputeReason: z.string().nullable(),
    status: z.enum(["PENDING", "DONE"]),
    submittedCount: Num,
    lockExpiresAt: z.date().nullable(),
    mine: z
      .object({
        verdict: z.enum(["ACCEPT", "FIX", "REJECT"]),
        value: Num,
        hint: z.string().nullable(),
        exclude: z.boolean(),
      })
      .nullable(),
    submissions: z.array(
      z.object({
        reviewer: z.string(),
        verdict: z.enum(["ACCEPT", "FIX", "REJECT"]),
        value: Num,
        exclude: z.boolean(),
        hint: z.string().nullable(),
        createdAt: z.date(),
      }),
    ),
    agreement: z.object({ reviewers: Num, agreeing: Num, ratio: Num }).nullable(),
  })
  .nullable();

export const ReviewOpenOutput = z.object({
  id: z.string(),
  turnId: z.string(),
  queue: z.object({ id: z.string(), name: z.string(), experimentId: z.string(), reviewersPerItem: Num }),
  disputed: z.boolean(),
  disputeReason: z.string().nullable(),
  status: z.enum(["PENDING", "DONE"]),
  submittedCount: Num,
  lockExpiresAt: z.date().nullable(),
  mine: z
    .object({
      verdict: z.enum(["ACCEPT", "FIX", "REJECT"]),
      value: Num,
      hint: z.string().nullable(),
      exclude: z.boolean(),
    })
    .nullable(),
  submissions: z.array(
    z.object({
      reviewer: z.string(),
      verdict: z.enum(["ACCEPT", "FIX", "REJECT"]),
      value: Num,
      exclude: z.boolean(),
      hint: z.string().nullable(),
      createdAt: z.date(),
    }),
  ),
  agreement: z.object({ reviewers: Num, agreeing: Num, ratio: Num }).nullable(),
});

export const ReviewSkipOutput = z.object({ ok: z.boolean() });

export const ReviewReleaseOutput = z.object({ ok: z.boolean() });

export const ReviewSubmitOutput = z.object({
  item: z.object({
    id: z.string(),
    turnId: z.string(),
    queue: z.object({ id: z.string(), name: z.string(), experimentId: z.string(), reviewersPerItem: Num }),
    disputed: z.boolean(),
    disputeReason: z.string().nullable(),
    status: z.enum(["PENDING", "DONE"]),
    submittedCount: Num,
    lockExpiresAt: z.date().nullable(),
    mine: z
      .object({
        verdict: z.enum(["ACCEPT", "FIX", "REJECT"]),
        value: Num,
        hint: z.string().nullable(),
        exclude: z.boolean(),
      })
      .nullable(),
    submissions: z.array(
      z.object({
        reviewer: z.string(),
        verdict: z.enum(["ACCEPT", "FIX", "REJECT"]),
        value: Num,
        exclude: z.boolean(),
        hint: z.string().nullable(),
        createdAt: z.date(),
      }),
    ),
    agreement: z.object({ reviewers: Num, agreeing: Num, ratio: Num }).nullable(),
  }),
  labelId: z.string(),
  training: z
    .object({
      turnId: z.string(),
      experimentId: z.string(),
      value: Num.nullable(),
      source: z.enum(["REVIEWER", "USER", "JUDGE"]).nullable(),
      labelId: z.string().nullable(),
      judgmentId: z.string().nullable(),
      hint: z.string().nullable(),
      needsTeacherRescore: z.boolean(),
      teacherLogprobs: z.array(Num).nullable(),
      kind: z.enum(["RL", "OPD", "BOTH"]).nullable(),
      reward: Num,
      excluded: z.boolean(),
      excludeReason: z.string().nullable(),
    })
    .nullable(),
  submittedCount: Num,
});

export const ReviewHistoryOutput = z.array(
  z.object({ itemId: z.string(), turnId: z.string(), action: z.string(), at: z.date() }),
);
