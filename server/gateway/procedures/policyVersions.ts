// Policy versions: the served version, promotion and rollback.
import * as versions from "../../policyVersions/service";
import {
  PolicyVersionGetInput,
  PolicyVersionListInput,
  PromoteInput,
  RollbackInput,
} from "../../policyVersions/schemas";
import { procedure } from "./define";
import {
  PolicyVersionsGetOutput,
  PolicyVersionsListOutput,
  PolicyVersionsPromoteOutput,
  PolicyVersionsRollbackOutput,
} from "./outputs/policyVersions";

export const policyVersionProcedures = {
  list: procedure({
    kind: "query",
    permission: "read",
    tag: "policy-versions",
    summary: "Policy versions of an experiment (newest first) and the one served",
    input: PolicyVersionListInput,
    rest: { method: "GET", path: "/policy-versions" },
    output: PolicyVersionsListOutput,
    handler: ({ principal, input }) => versions.listPolicyVersions(principal, input),
  }),
  get: procedure({
    kind: "query",
    permission: "read",
    tag: "policy-versions",
    summary: "One policy version with the training step that made it",
    input: PolicyVersionGetInput,
    rest: { method: "GET", path: "/policy-versions/:version" },
    output: PolicyVersionsGetOutput,
    handler: ({ principal, input }) => versions.getPolicyVersion(principal, input),
  }),
  promote: procedure({
    kind: "mutation",
    permission: "write",
    tag: "policy-versions",
    summary: "Serve a policy version (the previous one is retired); proxies switch at once",
    input: PromoteInput,
    rest: { method: "POST", path: "/policy-versions/promote" },
    output: PolicyVersionsPromoteOutput,
    handler: ({ principal, input }) => versions.promotePolicyVersion(principal, input),
  }),
  rollback: procedure({
    kind: "mutation",
    permission: "write",
    tag: "policy-versions",
    summary: "Roll back the served version (to its parent by default, 0 = base checkpoint)",
    input: RollbackInput,
    rest: { method: "POST", path: "/policy-versions/rollback" },
    output: PolicyVersionsRollbackOutput,
    handler: ({ principal, input }) => versions.rollbackPolicyVersion(principal, input),
  }),
};
