// Experiments: CRUD, clone, archive, config diff, and the form's config validation.
import { z } from "zod";
import * as experiments from "../../experiments/service";
import { ExperimentConfigSchema } from "../../config/experimentConfig";
import { env } from "../../platform/env";
import {
  ConfigDiffInput,
  ExperimentCloneInput,
  ExperimentCreateInput,
  ExperimentListInput,
  ExperimentUpdateInput,
} from "../../experiments/schemas";
import { IdSchema } from "../../platform/schemas";
import { procedure } from "./define";
import {
  ExperimentsArchiveOutput,
  ExperimentsCloneOutput,
  ExperimentsConnectInfoOutput,
  ExperimentsCreateOutput,
  ExperimentsDeleteOutput,
  ExperimentsDiffOutput,
  ExperimentsGetOutput,
  ExperimentsListOutput,
  ExperimentsUpdateOutput,
  ExperimentsValidateConfigOutput,
} from "./outputs/experiments";

const ById = z.object({ id: IdSchema });

export const experimentProcedures = {
  list: procedure({
    kind: "query",
    permission: "read",
    summary: "List experiments",
    input: ExperimentListInput,
    rest: { method: "GET", path: "/experiments" },
    output: ExperimentsListOutput,
    handler: ({ principal, input }) => experiments.listExperiments(principal, input),
  }),
  get: procedure({
    kind: "query",
    permission: "read",
    summary: "Get an experiment by id or slug",
    input: ById,
    rest: { method: "GET", path: "/experiments/:id" },
    output: ExperimentsGetOutput,
    handler: ({ principal, input }) => experiments.getExperiment(principal, input.id),
  }),
  create: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Create an experiment",
    input: ExperimentCreateInput,
    rest: { method: "POST", path: "/experiments", status: 201 },
    output: ExperimentsCreateOutput,
    handler: ({ principal, input }) => experiments.createExperiment(principal, input),
  }),
  update: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Edit an experiment",
    input: ExperimentUpdateInput,
    rest: { method: "PATCH", path: "/experiments/:id" },
    output: ExperimentsUpdateOutput,
    handler: ({ principal, input }) => experiments.updateExperiment(principal, input),
  }),
  clone: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Clone an experiment",
    input: ExperimentCloneInput,
    rest: { method: "POST", path: "/experiments/:id/clone", status: 201 },
    output: ExperimentsCloneOutput,
    handler: ({ principal, input }) => experiments.cloneExperiment(principal, input),
  }),
  archive: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Archive (or unarchive) an experiment",
    input: z.object({ id: IdSchema, archived: z.boolean().default(true) }),
    rest: { method: "POST", path: "/experiments/:id/archive" },
    output: ExperimentsArchiveOutput,
    handler: ({ principal, input }) => experiments.archiveExperiment(principal, input.id, input.archived),
  }),
  delete: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Delete an experiment that holds no data (else 409: archive it)",
    input: ById,
    rest: { method: "DELETE", path: "/experiments/:id" },
    output: ExperimentsDeleteOutput,
    handler: ({ principal, input }) => experiments.deleteExperiment(principal, input.id),
  }),
  connectInfo: procedure({
    kind: "query",
    permission: "read",
    summary:
      "Where agents reach the proxy, for the 'connect your agent' snippet (null url: the console's host on proxyPort)",
    output: ExperimentsConnectInfoOutput,
    handler: () => ({ proxyUrl: env().PROXY_PUBLIC_URL ?? null, proxyPort: env().PROXY_PORT }),
  }),
  diff: procedure({
    kind: "query",
    permission: "read",
    summary: "Config diff between two experiments or runs",
    input: ConfigDiffInput,
    rest: { method: "GET", path: "/config-diff" },
    output: ExperimentsDiffOutput,
    handler: ({ principal, input }) => experiments.diffExperimentsOrRuns(principal, input),
  }),
  validateConfig: procedure({
    kind: "query",
    permission: "read",
    summary: "Validate a config without saving, so the form can show every issue with its field path",
    input: z.object({ config: z.unknown() }),
    output: ExperimentsValidateConfigOutput,
    handler: ({ input }) => {
      const r = ExperimentConfigSchema.safeParse(input.config);
      return r.success
        ? { ok: true as const, config: r.data, issues: [] }
        : {
            ok: false as const,
            config: null,
            issues: r.error.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
          };
    },
  }),
};
