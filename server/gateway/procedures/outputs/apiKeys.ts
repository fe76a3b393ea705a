// Output schemas of the apiKeys procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types; one row shape for list, create and revoke).
import { z } from "zod";

const ApiKeyRow = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.string()),
  experimentId: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  createdById: z.string().nullable(),
  createdByEmail: z.string().nullable(),
});

export const ApiKeysListOutput = z.object({ items: z.array(ApiKeyRow), nextCursor: z.string().nullable() });

/** The only time the full key is returned. */
export const ApiKeysCreateOutput = ApiKeyRow.extend({ key: z.string() });

export const ApiKeysRevokeOutput = ApiKeyRow;
