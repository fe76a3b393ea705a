// Run operations around external trainers: the launch preview (the exact command, before launch), the
// trainer's logs tail, and the run's batch leases.
import { z } from "zod";
import { scopedProcedure, router } from "../trpc";
import { IdSchema } from "../../../experiments/schemas";
import { LeaseListInput, LogsQuery } from "../../../training/leases/schemas";
import { listLeases } from "../../../training/leases/service";
import { runLogs } from "../../../runs/logs";
import { launchPreview } from "../../../runs/preview";

export const runOpsRouter = router({
  launchPreview: scopedProcedure("read")
    .input(z.object({ experimentId: IdSchema }))
    .query(({ ctx, input }) => launchPreview(ctx.principal, input.experimentId)),
  logs: scopedProcedure("read")
    .input(LogsQuery.extend({ id: IdSchema }))
    .query(({ ctx, input }) => runLogs(ctx.principal, input.id, input.tail)),
  leases: scopedProcedure("read")
    .input(LeaseListInput.extend({ id: IdSchema }))
    .query(({ ctx, input }) => listLeases(ctx.principal, input.id, input)),
});
