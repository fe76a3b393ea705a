// Which experiments the per-user loop works on: the scheduler's tick, the auto-rollback check and the engine gate
// read the same set.
import { ExperimentConfigSchema, type ExperimentConfig } from "../config/experimentConfig";
import { db } from "../platform/db/client";

/** The active per-user experiments (all, or those of `experimentIds`), oldest first, with their configs parsed. */
export async function activePerUserExperiments(
  experimentIds: readonly string[] = [],
): Promise<{ id: string; config: ExperimentConfig }[]> {
  const rows = await db().experiment.findMany({
    where: {
      status: "ACTIVE",
      config: { path: ["personalization"], equals: "per-user" },
      ...(experimentIds.length ? { id: { in: [...experimentIds] } } : {}),
    },
    select: { id: true, config: true },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((e) => ({ id: e.id, config: ExperimentConfigSchema.parse(e.config) }));
}
