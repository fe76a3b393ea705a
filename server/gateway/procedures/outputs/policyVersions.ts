// Output schemas of the policyVersions procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types;
// one version row for list, get, promote and rollback).
import { z } from "zod";
import { Json, Num } from "./common";

const PolicyVersionRow = z.object({
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

export const PolicyVersionsListOutput = z.object({
  items: z.array(PolicyVersionRow),
  nextCursor: z.string().nullable(),
  activeVersion: Num,
});

export const PolicyVersionsGetOutput = PolicyVersionRow.extend({
  trainingStep: z
    .object({
      id: z.string(),
      step: Num,
      durationMs: Num.nullable(),
      metrics: Json,
      createdAt: z.string(),
    })
    .nullable(),
});

/** Promote and rollback both answer with the served version, the one it replaced and the chain after the change. */
const ServedVersionChange = z.object({
  active: z.object({ version: Num, checkpointPath: z.string().nullable() }),
  previous: Num,
  versions: z.array(PolicyVersionRow),
});

export const PolicyVersionsPromoteOutput = ServedVersionChange;

export const PolicyVersionsRollbackOutput = ServedVersionChange;
