// Output schemas of the runOps procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";
import { GpuSplitRow, Num } from "./common";

export const RunOpsLaunchPreviewOutput = z.object({
  experimentId: z.string(),
  trainerBackend: z.string(),
  command: z.string().nullable(),
  error: z.string().nullable(),
  notes: z.array(z.string()),
  needsUserKey: z.boolean(),
  userKeyConfigured: z.boolean(),
});

export const RunOpsTrackJobOutput = z.object({
  command: z.string(),
  split: z.object({ actor: Num, rollout: Num, prm: Num, total: Num }),
  gpuSplit: GpuSplitRow,
});

export const RunOpsLogsOutput = z.object({
  runId: z.string(),
  trainerBackend: z.string(),
  source: z.enum(["file", "ray", "none"]),
  text: z.string(),
  note: z.string().nullable(),
});

export const RunOpsLeasesOutput = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      requestKey: z.string().nullable(),
      size: Num,
      leasedAt: z.string(),
      expiresAt: z.string(),
      ackedAt: z.string().nullable(),
      step: Num.nullable(),
      state: z.enum(["acknowledged", "expired", "active"]),
    }),
  ),
});
