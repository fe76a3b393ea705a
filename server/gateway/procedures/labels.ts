// Reviewer labels on turns and their audit log.
import * as trajectories from "../../trajectories/service";
import { AuditListInput, LabelCreateInput, LabelListInput } from "../../trajectories/schemas";
import { procedure } from "./define";
import { LabelsAuditOutput, LabelsCreateOutput, LabelsListOutput } from "./outputs/labels";

export const labelProcedures = {
  list: procedure({
    kind: "query",
    permission: "read",
    summary: "List labels",
    input: LabelListInput,
    rest: { method: "GET", path: "/labels" },
    output: LabelsListOutput,
    handler: ({ principal, input }) => trajectories.listLabels(principal, input),
  }),
  create: procedure({
    kind: "mutation",
    permission: "review",
    summary: "Relabel a turn (reviewer label; feeds training)",
    input: LabelCreateInput,
    rest: { method: "POST", path: "/labels", status: 201 },
    output: LabelsCreateOutput,
    handler: ({ principal, input }) => trajectories.createLabel(principal, input),
  }),
  audit: procedure({
    kind: "query",
    permission: "read",
    summary: "Audit log of relabels (effective training label before and after)",
    input: AuditListInput,
    rest: { method: "GET", path: "/audit/relabels" },
    output: LabelsAuditOutput,
    handler: ({ principal, input }) => trajectories.listTurnAudit(principal, input),
  }),
};
