// Output schemas of the runs procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";
import { ExperimentConfigOutput } from "./config";
import { Num } from "./common";

export const RunsListOutput = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      experimentId: z.string(),
      number: Num,
      status: z.enum(["PENDING", "RUNNING", "PAUSED", "FINISHED", "FAILED", "CRASHED", "KILLED"]),
      trainerBackend: z.string(),
      externalJobId: z.string().nullable(),
      statusMessage: z.string().nullable(),
      config: ExperimentConfigOutput,
      createdAt: z.string(),
      startedAt: z.string().nullable(),
      endedAt: z.string().nullable(),
      heartbeatAt: z.string().nullable(),
      lastStep: Num,
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const RunsGetOutput = z.object({
  id: z.string(),
  experimentId: z.string(),
  number: Num,
  status: z.enum(["PENDING", "RUNNING", "PAUSED", "FINISHED", "FAILED", "CRASHED", "KILLED"]),
  trainerBackend: z.string(),
  externalJobId: z.string().nullable(),
  statusMessage: z.string().nullable(),
  config: ExperimentConfigOutput,
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  heartbeatAt: z.string().nullable(),
  lastStep: Num,
});

export const RunsStartOutput = RunsGetOutput;

export const RunsActOutput = RunsGetOutput;
