import { z } from "zod";
import { scopedProcedure, router } from "../trpc";
import * as experiments from "../../../experiments/service";
import { ExperimentConfigSchema } from "../../../config/experimentConfig";
import { env } from "../../../platform/env";
import {
  ConfigDiffInput,
  ExperimentCloneInput,
  ExperimentCreateInput,
  ExperimentListInput,
  ExperimentUpdateInput,
  IdSchema,
} from "../../../experiments/schemas";

export const experimentsRouter = router({
  list: scopedProcedure("read")
    .input(ExperimentListInput)
    .query(({ ctx, input }) => experiments.listExperiments(ctx.principal, input)),
  get: scopedProcedure("read")
    .input(z.object({ id: IdSchema }))
    .query(({ ctx, input }) => experiments.getExperiment(ctx.principal, input.id)),
  create: scopedProcedure("write")
    .input(ExperimentCreateInput)
    .mutation(({ ctx, input }) => experiments.createExperiment(ctx.principal, input)),
  update: scopedProcedure("write")
    .input(ExperimentUpdateInput)
    .mutation(({ ctx, input }) => experiments.updateExperiment(ctx.principal, input)),
  clone: scopedProcedure("write")
    .input(ExperimentCloneInput)
    .mutation(({ ctx, input }) => experiments.cloneExperiment(ctx.principal, input)),
  archive: scopedProcedure("write")
    .input(z.object({ id: IdSchema, archived: z.boolean().default(true) }))
    .mutation(({ ctx, input }) => experiments.archiveExperiment(ctx.principal, input.id, input.archived)),
  delete: scopedProcedure("write")
    .input(z.object({ id: IdSchema }))
    .mutation(({ ctx, input }) => experiments.deleteExperiment(ctx.principal, input.id)),
  /** Where agents reach the proxy, for the "connect your agent" snippet (null url: the console's host on `proxyPort`). */
  connectInfo: scopedProcedure("read").query(() => ({
    proxyUrl: env().PROXY_PUBLIC_URL ?? null,
    proxyPort: env().PROXY_PORT,
  })),
  diff: scopedProcedure("read")
    .input(ConfigDiffInput)
    .query(({ ctx, input }) => experiments.diffExperimentsOrRuns(ctx.principal, input)),
  /** Validates a config without saving, so the form can show every issue with its field path. */
  validateConfig: scopedProcedure("read")
    .input(z.object({ config: z.unknown() }))
    .query(({ input }) => {
      const r = ExperimentConfigSchema.safeParse(input.config);
      return r.success
        ? { ok: true as const, config: r.data, issues: [] }
        : {
            ok: false as const,
            config: null,
            issues: r.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
          };
    }),
});
