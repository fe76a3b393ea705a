import { z } from "zod";
import { scopedProcedure, router } from "../trpc";
import * as runs from "../../../runs/service";
import { IdSchema, RunActionInput, RunListInput, RunStartInput } from "../../../experiments/schemas";

export const runsRouter = router({
  list: scopedProcedure("read")
    .input(RunListInput)
    .query(({ ctx, input }) => runs.listRuns(ctx.principal, input)),
  get: scopedProcedure("read")
    .input(z.object({ id: IdSchema }))
    .query(({ ctx, input }) => runs.getRun(ctx.principal, input.id)),
  start: scopedProcedure("write")
    .input(RunStartInput)
    .mutation(({ ctx, input }) => runs.startRun(ctx.principal, input.experimentId)),
  act: scopedProcedure("write")
    .input(RunActionInput)
    .mutation(({ ctx, input }) => runs.actOnRun(ctx.principal, input)),
});
