// Output schemas of the apiKeys procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";

export const ApiKeysListOutput = z.object({
  items: z.array(
    z.object({
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
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const ApiKeysCreateOutput = z.object({
  key: z.string(),
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

export const ApiKeysRevokeOutput = z.object({
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
