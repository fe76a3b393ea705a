// The config an experiment evaluates under, and the evaluate job's id. Kept apart from the runner so the
// web process (service.ts) never loads the engine, the upstreams or custom grader modules.
import { db } from "../platform/db/client";
import { ExperimentConfigSchema, type ExperimentConfig } from "../config/experimentConfig";
import { unsealConfig, type SealedSecrets } from "../config/secrets";
import { LIVE_RUN_STATUSES } from "../platform/db/runStatus";

/** Its live run's frozen config, else its own; secrets unsealed. */
export async function evaluationConfig(experimentId: string): Promise<ExperimentConfig | null> {
  const e = await db().experiment.findUnique({
    where: { id: experimentId },
    select: {
      config: true,
      secrets: true,
      runs: {
        where: { status: { in: LIVE_RUN_STATUSES } },
        orderBy: { number: "desc" },
        take: 1,
        select: { config: true },
      },
    },
  });
  if (!e) return null;
  return unsealConfig(ExperimentConfigSchema.parse(e.runs[0]?.config ?? e.config), e.secrets as SealedSecrets);
}

/** Deterministic: queueing the same evaluation again is a no-op while its job exists. */
export const evaluateJobId = (experimentId: string, version: number, setVersionId: string, draw = 0) =>
  `${experimentId}_${version}_${setVersionId}${draw ? `_d${draw}` : ""}`;
