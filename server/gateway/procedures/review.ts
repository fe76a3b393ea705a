// Review queues: queue CRUD, filling, claiming the next item, submission and the reviewer's history.
import { z } from "zod";
import * as claims from "../../review/claims";
import * as queues from "../../review/queues";
import * as submission from "../../review/submission";
import { IdSchema } from "../../platform/schemas";
import {
  ItemInput,
  QueueAddTurnsInput,
  QueueCreateInput,
  QueueListInput,
  QueueUpdateInput,
  SubmitInput,
} from "../../review/schemas";
import { procedure } from "./define";
import {
  ReviewAddTurnsOutput,
  ReviewCreateQueueOutput,
  ReviewHistoryOutput,
  ReviewNextOutput,
  ReviewOpenOutput,
  ReviewQueueOutput,
  ReviewQueuesOutput,
  ReviewReleaseOutput,
  ReviewSkipOutput,
  ReviewSubmitOutput,
  ReviewUpdateQueueOutput,
} from "./outputs/review";

const ByQueue = z.object({ queueId: IdSchema });

export const reviewProcedures = {
  queues: procedure({
    kind: "query",
    permission: "read",
    summary: "List review queues with their pending / done / disputed counts",
    input: QueueListInput,
    rest: { method: "GET", path: "/review/queues" },
    output: ReviewQueuesOutput,
    handler: ({ principal, input }) => queues.listQueues(principal, input),
  }),
  queue: procedure({
    kind: "query",
    permission: "read",
    summary: "A review queue",
    input: z.object({ id: IdSchema }),
    rest: { method: "GET", path: "/review/queues/:id" },
    output: ReviewQueueOutput,
    handler: ({ principal, input }) => queues.getQueue(principal, input.id),
  }),
  createQueue: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Create a review queue (turn filter, assignees, reviewers per item, lock TTL)",
    input: QueueCreateInput,
    rest: { method: "POST", path: "/review/queues", status: 201 },
    output: ReviewCreateQueueOutput,
    handler: ({ principal, input }) => queues.createQueue(principal, input),
  }),
  updateQueue: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Edit a review queue (assignees, reviewers per item, archive)",
    input: QueueUpdateInput,
    rest: { method: "PATCH", path: "/review/queues/:id" },
    output: ReviewUpdateQueueOutput,
    handler: ({ principal, input }) => queues.updateQueue(principal, input),
  }),
  addTurns: procedure({
    kind: "mutation",
    permission: "review",
    summary: "Add turns to a review queue",
    input: QueueAddTurnsInput,
    rest: { method: "POST", path: "/review/queues/:queueId/turns" },
    output: ReviewAddTurnsOutput,
    handler: ({ principal, input }) => queues.addTurns(principal, input),
  }),
  next: procedure({
    kind: "mutation",
    permission: "review",
    summary: "Fetch and lock the next item (disputed first, skipping what you have seen); null when none is left",
    input: ByQueue,
    rest: { method: "POST", path: "/review/queues/:queueId/next" },
    output: ReviewNextOutput,
    handler: ({ principal, input }) => claims.fetchNext(principal, input.queueId),
  }),
  open: procedure({
    kind: "mutation",
    permission: "review",
    summary: "Open (and lock) one item of a queue",
    input: ItemInput,
    output: ReviewOpenOutput,
    handler: ({ principal, input }) => claims.openItem(principal, input.itemId),
  }),
  skip: procedure({
    kind: "mutation",
    permission: "review",
    summary: "Skip an item (not offered to you again) and release its lock",
    input: ItemInput,
    rest: { method: "POST", path: "/review/items/:itemId/skip" },
    output: ReviewSkipOutput,
    handler: ({ principal, input }) => claims.skipItem(principal, input.itemId),
  }),
  release: procedure({
    kind: "mutation",
    permission: "review",
    summary: "Release your lock on an item",
    input: ItemInput,
    rest: { method: "POST", path: "/review/items/:itemId/release" },
    output: ReviewReleaseOutput,
    handler: ({ principal, input }) => claims.releaseItem(principal, input.itemId),
  }),
  submit: procedure({
    kind: "mutation",
    permission: "review",
    summary: "Accept, fix & accept, or reject the item (writes an audited reviewer label)",
    input: SubmitInput,
    rest: { method: "POST", path: "/review/items/:itemId/submit" },
    output: ReviewSubmitOutput,
    handler: ({ principal, input }) => submission.submitReview(principal, input),
  }),
  history: procedure({
    kind: "query",
    permission: "review",
    summary: "Your recent submissions in a queue",
    input: ByQueue,
    output: ReviewHistoryOutput,
    handler: ({ principal, input }) => claims.myHistory(principal, input.queueId),
  }),
};
