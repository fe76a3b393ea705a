// Output schemas of the policyVersions procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";
import { Json, Num } from "./common";

export const PolicyVersionsListOutput = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      experimentId: z.string(),
      runId: z.string().nullable(),
      version: Num,
      parentVersion: Num.nullable(),
      status: z.enum(["ACTIVE", "CANDIDATE", "RETIRED", "ROLLED_BACK"]),
      step: Num.nullable(),
      checkpointPath: z.string().nullable(),
      checkpointSha: z.string().nullable(),
      bytes: Num.nullable(),
      available: z.boolean(),
      createdAt: z.string(),
      promotedAt: z.string().nullable(),
      gateReason: z.string().nullable(),
    }),
  ),
  nextCursor: z.string().nullable(),
  activeVersion: Num,
});

export const PolicyVersionsGetOutput = z.object({
  trainingStep: z
    .object({
      id: z.string(),
      step: Num,
      durationMs: Num.nullable(),
      metrics: Json,
      createdAt: z.string(),
    })
    .nullable(),
  id: z.string(),
  experimentId: z.string(),
  runId: z.string().nullable(),
  version: Num,
  parentVersion: Num.nullable(),
  status: z.enum(["ACTIVE", "CANDIDATE", "RETIRED", "ROLLED_BACK"]),
  step: Num.nullable(),
  checkpointPath: z.string().nullable(),
  checkpointSha: z.string().nullable(),
  bytes: Num.nullable(),
  available: z.boolean(),
  createdAt: z.string(),
  promotedAt: z.string().nullable(),
  gateReason: z.string().nullable(),
});

export const PolicyVersionsPromoteOutput = z.object({
  active: z.object({ version: Num, checkpointPath: z.string().nullable() }),
  previous: Num,
  versions: z.array(
    z.object({
      id: z.string(),
      experimentId: z.string(),
      runId: z.string().nullable(),
      version: Num,
      parentVersion: Num.nullable(),
      status: z.enum(["ACTIVE", "CANDIDATE", "RETIRED", "ROLLED_BACK"]),
      step: Num.nullable(),
      checkpointPath: z.string().nullable(),
      checkpointSha: z.string().nullable(),
      bytes: Num.nullable(),
      available: z.boolean(),
      createdAt: z.string(),
      promotedAt: z.string().nullable(),
      gateReason: z.string().nullable(),
    }),
  ),
});

export const PolicyVersionsRollbackOutput = z.object({
  active: z.object({ version: Num, checkpointPath: z.string().nullable() }),
  previous: Num,
  versions: z.array(
    z.object({
      id: z.string(),
      experimentId: z.string(),
      runId: z.string().nullable(),
      version: Num,
      parentVersion: Num.nullable(),
      status: z.enum(["ACTIVE", "CANDIDATE", "RETIRED", "ROLLED_BACK"]),
      step: Num.nullable(),
      checkpointPath: z.string().nullable(),
      checkpointSha: z.string().nullable(),
      bytes: Num.nullable(),
      available: z.boolean(),
      createdAt: z.string(),
      promotedAt: z.string().nullable(),
      gateReason: z.string().nullable(),
    }),
  ),
});
