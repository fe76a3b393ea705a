// End users of a per-user experiment: their adapters, rollback, training on demand, and deletion.
import { compareEndUser } from "../../personalization/compare";
import { endUserCurves } from "../../personalization/curves";
import * as endUsers from "../../personalization/service";
import {
  AdapterRegisterInput,
  AdapterTrainInput,
  EndUserCompareInput,
  EndUserCurvesInput,
  AdapterOwnerInput,
  EndUserInput,
  EndUsersListInput,
} from "../../personalization/schemas";
import { procedure } from "./define";
import {
  EndUserAdapterRegisterOutput,
  EndUserCompareOutput,
  EndUserCurvesOutput,
  EndUserDeleteOutput,
  EndUserRollbackOutput,
  EndUsersListOutput,
  EndUsersTrainOutput,
} from "./outputs/endUsers";

export const endUserProcedures = {
  list: procedure({
    kind: "query",
    permission: "read",
    summary: "End users of an experiment with their adapter version, samples and reward trend",
    input: EndUsersListInput,
    rest: { method: "GET", path: "/experiments/:experimentId/end-users" },
    output: EndUsersListOutput,
    handler: ({ principal, input }) => endUsers.listEndUsers(principal, input),
  }),
  curves: procedure({
    kind: "query",
    permission: "read",
    summary: "Each end user's mean judged reward per version that served them, beside the shared policy's curve",
    input: EndUserCurvesInput,
    rest: { method: "GET", path: "/experiments/:experimentId/end-users/curves" },
    output: EndUserCurvesOutput,
    handler: ({ principal, input }) => endUserCurves(principal, input),
  }),
  rollback: procedure({
    kind: "mutation",
    permission: "write",
    summary:
      "Roll one end user (or `*`, the shared adapter new users are served) back to the adapter version (or base) served before the current one",
    input: AdapterOwnerInput,
    rest: { method: "POST", path: "/experiments/:experimentId/end-users/:endUserId/rollback" },
    output: EndUserRollbackOutput,
    handler: ({ principal, input }) => endUsers.rollbackEndUser(principal, input),
  }),
  train: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Train a new adapter version for every end user with enough new samples, and gate each",
    input: AdapterTrainInput,
    rest: { method: "POST", path: "/experiments/:experimentId/end-users/train" },
    output: EndUsersTrainOutput,
    handler: ({ principal, input }) => endUsers.trainEndUsers(principal, input),
  }),
  registerAdapter: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Register an end user's adapter version as a PEFT folder that SGLang/vLLM multi-LoRA serves",
    input: AdapterRegisterInput,
    rest: { method: "POST", path: "/experiments/:experimentId/end-users/:endUserId/adapters", status: 201 },
    output: EndUserAdapterRegisterOutput,
    handler: ({ principal, input }) => endUsers.registerEndUserAdapter(principal, input),
  }),
  compare: procedure({
    kind: "mutation",
    permission: "read",
    summary: "Base vs the user's served adapter, greedy, on a few of their held-out prompts (embedded policy)",
    input: EndUserCompareInput,
    rest: { method: "POST", path: "/experiments/:experimentId/end-users/:endUserId/compare" },
    output: EndUserCompareOutput,
    handler: ({ principal, input }) => compareEndUser(principal, input),
  }),
  delete: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Delete an end user's adapters, turns and samples (audited)",
    input: EndUserInput,
    rest: { method: "DELETE", path: "/experiments/:experimentId/end-users/:endUserId" },
    output: EndUserDeleteOutput,
    handler: ({ principal, input }) => endUsers.deleteEndUser(principal, input),
  }),
};
