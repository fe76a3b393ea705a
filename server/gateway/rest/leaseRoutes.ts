// REST routes external trainers call (integrations/slime, integrations/tinker), plus the run operations
// around them (logs tail, launch preview); appended to the route table in server/gateway/rest/routes.ts, so they
// are dispatched, access-tested and in the OpenAPI document.
import { z } from "zod";
import { IdSchema } from "../../experiments/schemas";
import { route, type RouteDef } from "./define";
import { collectRunSamples } from "../../training/leases/fill";
import {
  AckInput,
  LeaseInput,
  LeaseListInput,
  LeaseParams,
  LogsQuery,
  ReportInput,
} from "../../training/leases/schemas";
import * as batches from "../../training/leases/service";
import { runLogs } from "../../runs/logs";
import { launchPreview } from "../../runs/preview";

const ById = z.object({ id: IdSchema });

export const batchRoutes: RouteDef[] = [
  route({
    method: "POST",
    path: "/runs/:id/batches/lease",
    tag: "trainer",
    summary:
      "Lease up to `size` ready samples (token ids, loss mask, reward, behaviour/teacher log-probs, policy versions) until they expire; `leaseId` null when fewer than `minSize` are ready",
    permission: "write",
    params: ById,
    body: LeaseInput,
    handler: (p, i) => batches.leaseBatch(p, i.params.id, i.body, { fill: collectRunSamples }),
  }),
  route({
    method: "POST",
    path: "/runs/:id/batches/:leaseId/ack",
    tag: "trainer",
    summary:
      "Acknowledge a leased batch as trained at `step`: its samples train once (re-acknowledging is a no-op), a training step and policy version are recorded",
    permission: "write",
    params: LeaseParams,
    body: AckInput,
    handler: (p, i) => batches.ackBatch(p, i.params.id, i.params.leaseId, i.body),
  }),
  route({
    method: "GET",
    path: "/runs/:id/batches",
    tag: "trainer",
    summary: "Recent batch leases of a run (active, expired, acknowledged)",
    permission: "read",
    params: ById,
    query: LeaseListInput,
    handler: (p, i) => batches.listLeases(p, i.params.id, i.query),
  }),
  route({
    method: "POST",
    path: "/runs/:id/report",
    tag: "trainer",
    summary:
      "Trainer heartbeat: metrics, weight version, the rollout engine's URL (the proxy forwards there), the PRM routers (the judge scores there), lease renewals; answers whether to stop",
    permission: "write",
    params: ById,
    body: ReportInput,
    handler: (p, i) => batches.reportRun(p, i.params.id, i.body),
  }),
  route({
    method: "GET",
    path: "/runs/:id/logs",
    tag: "runs",
    summary:
      "The last `tail` lines of the run's trainer logs (Ray job logs, or the saved output of local trainer processes)",
    permission: "read",
    params: ById,
    query: LogsQuery,
    handler: (p, i) => runLogs(p, i.params.id, i.query.tail),
  }),
  route({
    method: "GET",
    path: "/experiments/:id/launch-preview",
    tag: "runs",
    summary: "The exact trainer command a run of this experiment would launch (secrets hidden), or why it cannot",
    permission: "read",
    params: ById,
    handler: (p, i) => launchPreview(p, i.params.id),
  }),
];
