// Runs: start, list, stop/pause/resume, and the operations around external trainers (launch preview, logs).
import { z } from "zod";
import * as runs from "../../runs/service";
import { RunActionInput, RunListInput, RunStartInput } from "../../experiments/schemas";
import { IdSchema } from "../../platform/schemas";
import { LeaseListInput, LogsQuery } from "../../training/leases/schemas";
import { listLeases } from "../../training/leases/service";
import { runLogs } from "../../runs/logs";
import { launchPreview, trackJobPreview } from "../../runs/preview";
import { trackJobSchema } from "../../runs/backends/slime/tracks";
import { procedure } from "./define";
import { RunsActOutput, RunsGetOutput, RunsListOutput, RunsStartOutput } from "./outputs/runs";
import {
  RunOpsLaunchPreviewOutput,
  RunOpsLeasesOutput,
  RunOpsLogsOutput,
  RunOpsTrackJobOutput,
} from "./outputs/runOps";

export const runProcedures = {
  list: procedure({
    kind: "query",
    permission: "read",
    summary: "List runs",
    input: RunListInput,
    rest: { method: "GET", path: "/runs" },
    output: RunsListOutput,
    handler: ({ principal, input }) => runs.listRuns(principal, input),
  }),
  get: procedure({
    kind: "query",
    permission: "read",
    summary: "Get a run",
    input: z.object({ id: IdSchema }),
    rest: { method: "GET", path: "/runs/:id" },
    output: RunsGetOutput,
    handler: ({ principal, input }) => runs.getRun(principal, input.id),
  }),
  start: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Start a run of an experiment",
    input: RunStartInput,
    rest: { method: "POST", path: "/runs", status: 201 },
    output: RunsStartOutput,
    handler: ({ principal, input }) => runs.startRun(principal, input.experimentId),
  }),
  act: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Stop, pause or resume a run",
    input: RunActionInput,
    rest: { method: "POST", path: "/runs/:id/actions" },
    output: RunsActOutput,
    handler: ({ principal, input }) => runs.actOnRun(principal, input),
  }),
};

/** Run operations around external trainers: the exact command before launch, the logs tail, the batch leases. */
export const runOpsProcedures = {
  launchPreview: procedure({
    kind: "query",
    permission: "read",
    tag: "runs",
    summary: "The exact trainer command a run of this experiment would launch (secrets hidden), or why it cannot",
    input: z.object({ experimentId: IdSchema }),
    rest: { method: "GET", path: "/experiments/:experimentId/launch-preview" },
    output: RunOpsLaunchPreviewOutput,
    handler: ({ principal, input }) => launchPreview(principal, input.experimentId),
  }),
  trackJob: procedure({
    kind: "mutation",
    permission: "read",
    tag: "runs",
    summary:
      "The slime job of an agentic track (ReTool or terminal-rl, groups of n, step_wise with a PRM) as the fork's scripts define it: the command to run on your Ray cluster and the GPUs per role",
    input: trackJobSchema,
    rest: { method: "POST", path: "/gpu/track-jobs/preview" },
    output: RunOpsTrackJobOutput,
    handler: ({ input }) => trackJobPreview(input),
  }),
  logs: procedure({
    kind: "query",
    permission: "read",
    tag: "runs",
    summary:
      "The last `tail` lines of the run's trainer logs (Ray job logs, or the saved output of local trainer processes)",
    input: LogsQuery.extend({ id: IdSchema }),
    rest: { method: "GET", path: "/runs/:id/logs" },
    output: RunOpsLogsOutput,
    handler: ({ principal, input }) => runLogs(principal, input.id, input.tail),
  }),
  leases: procedure({
    kind: "query",
    permission: "read",
    tag: "trainer",
    summary: "Recent batch leases of a run (active, expired, acknowledged)",
    input: LeaseListInput.extend({ id: IdSchema }),
    rest: { method: "GET", path: "/runs/:id/batches" },
    output: RunOpsLeasesOutput,
    handler: ({ principal, input }) => listLeases(principal, input.id, input),
  }),
};
