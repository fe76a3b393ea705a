import { z } from "zod";
import { scopedProcedure, router } from "../trpc";
import * as review from "../../../review/service";
import { IdSchema } from "../../../experiments/schemas";
import {
  ItemInput,
  QueueAddTurnsInput,
  QueueCreateInput,
  QueueListInput,
  QueueUpdateInput,
  SubmitInput,
} from "../../../review/schemas";

const ByQueue = z.object({ queueId: IdSchema });

export const reviewRouter = router({
  queues: scopedProcedure("read")
    .input(QueueListInput)
    .query(({ ctx, input }) => review.listQueues(ctx.principal, input)),
  queue: scopedProcedure("read")
    .input(z.object({ id: IdSchema }))
    .query(({ ctx, input }) => review.getQueue(ctx.principal, input.id)),
  createQueue: scopedProcedure("write")
    .input(QueueCreateInput)
    .mutation(({ ctx, input }) => review.createQueue(ctx.principal, input)),
  updateQueue: scopedProcedure("write")
    .input(QueueUpdateInput)
    .mutation(({ ctx, input }) => review.updateQueue(ctx.principal, input)),
  addTurns: scopedProcedure("review")
    .input(QueueAddTurnsInput)
    .mutation(({ ctx, input }) => review.addTurns(ctx.principal, input)),
  next: scopedProcedure("review")
    .input(ByQueue)
    .mutation(({ ctx, input }) => review.fetchNext(ctx.principal, input.queueId)),
  open: scopedProcedure("review")
    .input(ItemInput)
    .mutation(({ ctx, input }) => review.openItem(ctx.principal, input.itemId)),
  skip: scopedProcedure("review")
    .input(ItemInput)
    .mutation(({ ctx, input }) => review.skipItem(ctx.principal, input.itemId)),
  release: scopedProcedure("review")
    .input(ItemInput)
    .mutation(({ ctx, input }) => review.releaseItem(ctx.principal, input.itemId)),
  submit: scopedProcedure("review")
    .input(SubmitInput)
    .mutation(({ ctx, input }) => review.submitReview(ctx.principal, input)),
  history: scopedProcedure("review")
    .input(ByQueue)
    .query(({ ctx, input }) => review.myHistory(ctx.principal, input.queueId)),
});
