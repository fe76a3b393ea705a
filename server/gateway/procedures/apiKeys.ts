// API keys (admin only): the secret is returned once, at creation.
import { z } from "zod";
import * as apiKeys from "../../apiKeys/service";
import { ApiKeyCreateInput, ApiKeyListInput } from "../../users/schemas";
import { IdSchema } from "../../platform/schemas";
import { procedure } from "./define";
import { ApiKeysCreateOutput, ApiKeysListOutput, ApiKeysRevokeOutput } from "./outputs/apiKeys";

export const apiKeyProcedures = {
  list: procedure({
    kind: "query",
    permission: "admin",
    tag: "admin",
    summary: "List API keys (never their secrets)",
    input: ApiKeyListInput,
    rest: { method: "GET", path: "/api-keys" },
    output: ApiKeysListOutput,
    handler: ({ principal, input }) => apiKeys.listApiKeys(principal, input),
  }),
  create: procedure({
    kind: "mutation",
    permission: "admin",
    tag: "admin",
    summary: "Create an API key (the secret is returned once)",
    input: ApiKeyCreateInput,
    rest: { method: "POST", path: "/api-keys", status: 201 },
    output: ApiKeysCreateOutput,
    handler: ({ principal, input }) => apiKeys.createApiKey(principal, input),
  }),
  revoke: procedure({
    kind: "mutation",
    permission: "admin",
    tag: "admin",
    summary: "Revoke an API key",
    input: z.object({ id: IdSchema }),
    rest: { method: "DELETE", path: "/api-keys/:id" },
    output: ApiKeysRevokeOutput,
    handler: ({ principal, input }) => apiKeys.revokeApiKey(principal, input.id),
  }),
};
