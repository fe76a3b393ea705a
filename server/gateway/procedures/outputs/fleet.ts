// Output schemas of the fleet procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";
import { GpuSplitRow, Num } from "./common";

export const FleetOverviewOutput = z.object({
  queues: z.union([
    z.array(z.never()),
    z.array(z.object({ name: z.string(), waiting: Num, active: Num, delayed: Num, failed: Num, lagMs: Num })),
  ]),
  problems: z.array(
    z.object({
      experimentName: z.string().nullable(),
      queue: z.string(),
      jobId: z.string(),
      experimentId: z.string().nullable(),
      state: z.enum(["failed", "retrying"]),
      attemptsMade: Num,
      attempts: Num,
      reason: z.string(),
      stack: z.string().nullable(),
      at: Num,
    }),
  ),
  backlogs: z.array(
    z.object({
      lastError: z.string().nullable(),
      experimentId: z.string(),
      experimentName: z.string(),
      judgeDepth: Num,
      judgeLagMs: Num,
    }),
  ),
  gauges: z.array(
    z.object({
      runId: z.string().nullable(),
      experimentId: z.string(),
      experimentName: z.string(),
      runKey: z.string(),
      name: z.string(),
      value: Num,
      at: z.date(),
    }),
  ),
  runs: z.array(
    z.object({
      id: z.string(),
      number: Num,
      status: z.enum(["PENDING", "RUNNING", "PAUSED", "FINISHED", "FAILED", "CRASHED", "KILLED"]),
      experimentId: z.string(),
      experimentName: z.string(),
      trainerBackend: z.string(),
      gpu: GpuSplitRow.nullable(),
      gpuSummary: z.string().nullable(),
      pendingSamples: Num,
      batchSize: Num.nullable(),
      lastStep: Num,
      lastStepAt: z.date().nullable(),
      startedAt: z.date().nullable(),
    }),
  ),
});
