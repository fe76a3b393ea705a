// Output schemas of the runs procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";
import { ExperimentConfigOutput } from "./config";
import { Num } from "./common";

/** runView in runs/service.ts. */
const RunView = z.object({
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
  /** where an external trainer reported its rollout engine serves (the proxy sends the run's traffic there) */
  rolloutUrl: z.string().nullable(),
  /** the address before its last change, and when it changed (a trainer key moved the run's traffic) */
  rolloutUrlPrevious: z.string().nullable(),
  rolloutUrlChangedAt: z.string().nullable(),
});

export const RunsListOutput = z.object({ items: z.array(RunView), nextCursor: z.string().nullable() });

export const RunsGetOutput = RunView;

export const RunsStartOutput = RunsGetOutput;

export const RunsActOutput = RunsGetOutput;
