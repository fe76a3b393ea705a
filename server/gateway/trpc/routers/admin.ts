import { z } from "zod";
import { scopedProcedure, router } from "../trpc";
import * as users from "../../../users/service";
import * as apiKeys from "../../../apiKeys/service";
import {
  ApiKeyCreateInput,
  ApiKeyListInput,
  UserCreateInput,
  UserListInput,
  UserUpdateInput,
} from "../../../users/schemas";
import { IdSchema } from "../../../experiments/schemas";

export const usersRouter = router({
  list: scopedProcedure("admin")
    .input(UserListInput)
    .query(({ ctx, input }) => users.listUsers(ctx.principal, input)),
  create: scopedProcedure("admin")
    .input(UserCreateInput)
    .mutation(({ ctx, input }) => users.createUser(ctx.principal, input)),
  update: scopedProcedure("admin")
    .input(UserUpdateInput)
    .mutation(({ ctx, input }) => users.updateUser(ctx.principal, input)),
});

export const apiKeysRouter = router({
  list: scopedProcedure("admin")
    .input(ApiKeyListInput)
    .query(({ ctx, input }) => apiKeys.listApiKeys(ctx.principal, input)),
  create: scopedProcedure("admin")
    .input(ApiKeyCreateInput)
    .mutation(({ ctx, input }) => apiKeys.createApiKey(ctx.principal, input)),
  revoke: scopedProcedure("admin")
    .input(z.object({ id: IdSchema }))
    .mutation(({ ctx, input }) => apiKeys.revokeApiKey(ctx.principal, input.id)),
});
