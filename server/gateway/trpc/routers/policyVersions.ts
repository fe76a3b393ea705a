import { scopedProcedure, router } from "../trpc";
import * as versions from "../../../policyVersions/service";
import {
  PolicyVersionGetInput,
  PolicyVersionListInput,
  PromoteInput,
  RollbackInput,
} from "../../../policyVersions/schemas";

export const policyVersionsRouter = router({
  list: scopedProcedure("read")
    .input(PolicyVersionListInput)
    .query(({ ctx, input }) => versions.listPolicyVersions(ctx.principal, input)),
  get: scopedProcedure("read")
    .input(PolicyVersionGetInput)
    .query(({ ctx, input }) => versions.getPolicyVersion(ctx.principal, input)),
  promote: scopedProcedure("write")
    .input(PromoteInput)
    .mutation(({ ctx, input }) => versions.promotePolicyVersion(ctx.principal, input)),
  rollback: scopedProcedure("write")
    .input(RollbackInput)
    .mutation(({ ctx, input }) => versions.rollbackPolicyVersion(ctx.principal, input)),
});
