// Batch leases: what external trainers call (integrations/slime, integrations/tinker) with their run-bound
// trainer key (scope "trainer"; write and admin principals hold the permission too). The run's lease list is
// runOps.leases (runs.ts).
import { z } from "zod";
import { IdSchema } from "../../platform/schemas";
import { collectRunSamples } from "../../training/leases/fill";
import { perUserLeasing } from "../../personalization/leases";
import { AckInput, EpisodeLeaseInput, LeaseInput, LeaseParams, ReportInput } from "../../training/leases/schemas";
import { leaseEpisodeGroups } from "../../training/leases/episodes";
import * as batches from "../../training/leases/service";
import { procedure } from "./define";
import {
  BatchesAckOutput,
  BatchesEpisodeLeaseOutput,
  BatchesLeaseOutput,
  BatchesReportOutput,
} from "./outputs/batches";

const ById = z.object({ id: IdSchema });

export const batchProcedures = {
  lease: procedure({
    kind: "mutation",
    permission: "trainer",
    tag: "trainer",
    summary:
      "Lease up to `size` ready samples (token ids, loss mask, reward, behaviour/teacher log-probs, policy versions) until they expire; `leaseId` null when fewer than `minSize` are ready. A per-user experiment's lease holds one end user's samples (`endUserId`), picked by fair share, and names that user's served adapter version and latest version number (`adapter`: a restarted trainer resumes from the one and numbers past the other)",
    input: LeaseInput.safeExtend(ById.shape),
    rest: { method: "POST", path: "/runs/:id/batches/lease" },
    output: BatchesLeaseOutput,
    handler: ({ principal, input: { id, ...body } }) =>
      batches.leaseBatch(principal, id, body, { fill: collectRunSamples, perUser: perUserLeasing }),
  }),
  leaseEpisodes: procedure({
    kind: "mutation",
    permission: "trainer",
    tag: "trainer",
    summary:
      "Lease up to `groups` finished GRPO groups of the experiment's episodes (each episode's steps with their turns' tokens, log-probs and step scores) until they expire; acknowledged like a batch; `leaseId` null when fewer than `minGroups` are ready",
    input: EpisodeLeaseInput.safeExtend(ById.shape),
    rest: { method: "POST", path: "/runs/:id/batches/lease-episodes" },
    output: BatchesEpisodeLeaseOutput,
    handler: ({ principal, input: { id, ...body } }) =>
      leaseEpisodeGroups(principal, id, body, { fill: collectRunSamples }),
  }),
  ack: procedure({
    kind: "mutation",
    permission: "trainer",
    tag: "trainer",
    summary:
      "Acknowledge a leased batch as trained at `step`: its samples train once (re-acknowledging is a no-op), a training step and policy version are recorded; a per-user lease records no policy version: its `checkpointPath` becomes the user's next version (a CANDIDATE the engine gate decides when the user has held-out turns, else served at once)",
    input: AckInput.extend(LeaseParams.shape),
    rest: { method: "POST", path: "/runs/:id/batches/:leaseId/ack" },
    output: BatchesAckOutput,
    handler: ({ principal, input: { id, leaseId, ...body } }) =>
      batches.ackBatch(principal, id, leaseId, body, { perUser: perUserLeasing }),
  }),
  report: procedure({
    kind: "mutation",
    permission: "trainer",
    tag: "trainer",
    summary:
      "Trainer heartbeat: metrics, weight version, the rollout engine's URL (the proxy forwards there), the PRM routers (the judge scores there), lease renewals; answers whether to stop",
    input: ReportInput.extend(ById.shape),
    rest: { method: "POST", path: "/runs/:id/report" },
    output: BatchesReportOutput,
    handler: ({ principal, input: { id, ...body } }) => batches.reportRun(principal, id, body),
  }),
};
