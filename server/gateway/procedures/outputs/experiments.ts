// Output schemas of the experiments procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";
import { ExperimentConfigOutput } from "./config";
import { Num } from "./common";

export const ExperimentsGetOutput = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  status: z.enum(["ACTIVE", "ARCHIVED"]),
  demo: z.boolean(),
  config: ExperimentConfigOutput,
  secretsSet: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  archivedAt: z.string().nullable(),
  activeRun: z.object({ id: z.string(), number: Num, status: z.string() }).nullable(),
  counts: z.object({ runs: Num, sessions: Num, turns: Num }).optional(),
});

export const ExperimentsListOutput = z.object({
  items: z.array(ExperimentsGetOutput),
  nextCursor: z.string().nullable(),
});

export const ExperimentsCreateOutput = ExperimentsGetOutput;

export const ExperimentsUpdateOutput = ExperimentsGetOutput;

export const ExperimentsCloneOutput = ExperimentsGetOutput;

export const ExperimentsArchiveOutput = ExperimentsGetOutput;

export const ExperimentsDeleteOutput = z.object({ id: z.string(), deleted: z.literal(true) });

export const ExperimentsConnectInfoOutput = z.object({ proxyUrl: z.string().nullable(), proxyPort: Num });

export const ExperimentsDiffOutput = z.object({
  a: z.object({ id: z.string(), label: z.string() }),
  b: z.object({ id: z.string(), label: z.string() }),
  changes: z.array(z.object({ path: z.string(), before: z.unknown(), after: z.unknown() })),
});

export const ExperimentsValidateConfigOutput = z.union([
  z.object({
    ok: z.literal(true),
    config: ExperimentConfigOutput,
    issues: z.array(z.never()),
  }),
  z.object({
    ok: z.literal(false),
    config: z.null(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })),
  }),
]);
