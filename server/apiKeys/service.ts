import type { z } from "zod";
import { db } from "../platform/db/client";
import type { ApiKey } from "../platform/db/generated/client";
import { audit } from "../access/audit";
import { forgetApiKey, generateApiKey, hashApiKey, parseKeyPrefix } from "../access/apiKeys";
import { permissions, scopePermissions, type Principal, actorUserId } from "../access/principal";
import { publish } from "../platform/bus/pubsub";
import { badRequest, forbidden, notFound } from "../platform/errors";
import type { ApiKeyCreateInput, ApiKeyListInput } from "../users/schemas";

export function apiKeyView(k: ApiKey & { createdBy?: { email: string } | null }) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    experimentId: k.experimentId,
    endUserId: k.endUserId,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    expiresAt: k.expiresAt?.toISOString() ?? null,
    revokedAt: k.revokedAt?.toISOString() ?? null,
    /** Who created it (keys minted by a key are the creating user's too); null: the system or a seed. */
    createdById: k.createdById,
    createdByEmail: k.createdBy?.email ?? null,
  };
}

/** Returns the plaintext key exactly once; only its hash is stored. */
export async function createApiKey(
  p: Principal | null,
  input: z.output<typeof ApiKeyCreateInput>,
  plaintextOverride?: string,
) {
  // The route checks the admin permission; a key may still not mint anything broader than itself.
  if (p?.kind === "apiKey") assertNoBroaderThan(p, input);
  if (input.endUserId !== undefined) assertEndUserKey(input);
  const key = plaintextOverride ? keyFromPlaintext(plaintextOverride) : generateApiKey();
  const row = await db().$transaction(async (tx) => {
    if (
      input.experimentId &&
      !(await tx.experiment.findUnique({ where: { id: input.experimentId }, select: { id: true } }))
    ) {
      throw notFound("Experiment", input.experimentId);
    }
    const created = await tx.apiKey.create({
      data: {
        name: input.name,
        prefix: key.prefix,
        secretHash: key.secretHash,
        scopes: [...new Set(input.scopes)],
        experimentId: input.experimentId,
        endUserId: input.endUserId ?? null,
        expiresAt: input.expiresAt,
        createdById: p ? actorUserId(p) : null,
      },
    });
    await audit(tx, p, "apiKey.create", "apiKey", created.id, null, apiKeyView(created));
    return created;
  });
  return { ...apiKeyView(row), key: key.plaintext };
}

/** A key mints only keys within its own permissions (and binding: a bound key lacks the admin permission the route needs). */
function assertNoBroaderThan(p: Principal & { kind: "apiKey" }, input: z.output<typeof ApiKeyCreateInput>): void {
  const mine = permissions(p);
  const wanted = [...scopePermissions(input.scopes)].filter((perm) => !mine.has(perm));
  if (wanted.length) throw forbidden(`A key cannot mint a key broader than itself (it lacks: ${wanted.join(", ")})`);
  if (p.experimentId && input.experimentId !== p.experimentId)
    throw forbidden("A key bound to one experiment can only mint keys bound to the same experiment");
}

/**
 * A key that serves one end user is what that user's agent holds: it talks to one experiment's proxy and does
 * nothing else (a read or write scope would show or change every user's data; identity would let it speak for
 * others).
 */
function assertEndUserKey(input: z.output<typeof ApiKeyCreateInput>): void {
  if (!input.experimentId) {
    const why = "a key bound to an end user must be bound to an experiment";
    throw badRequest(`Invalid key: ${why}`, [{ path: "experimentId", message: why }]);
  }
  const others = input.scopes.filter((s) => s !== "proxy");
  if (others.length) {
    const why = `a key bound to an end user has the proxy scope only (not: ${others.join(", ")})`;
    throw badRequest(`Invalid key: ${why}`, [{ path: "scopes", message: why }]);
  }
}

/** INIT_API_KEY lets scripts choose the key; it must have our format so the prefix lookup works. */
function keyFromPlaintext(plaintext: string) {
  const prefix = parseKeyPrefix(plaintext);
  if (!prefix) throw badRequest("INIT_API_KEY must look like ocrl_<8 hex>_<20+ url-safe chars>");
  return { plaintext, prefix, secretHash: hashApiKey(plaintext) };
}

export async function listApiKeys(p: Principal, input: z.output<typeof ApiKeyListInput>) {
  const rows = await db().apiKey.findMany({
    where: input.includeRevoked ? {} : { revokedAt: null },
    include: { createdBy: { select: { email: true } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
  });
  const items = rows.slice(0, input.limit).map(apiKeyView);
  return { items, nextCursor: rows.length > input.limit ? items[items.length - 1]!.id : null };
}

export async function revokeApiKey(p: Principal, id: string) {
  const row = await db().$transaction(async (tx) => {
    const before = await tx.apiKey.findUnique({ where: { id } });
    if (!before) throw notFound("API key", id);
    if (before.revokedAt) return before;
    const after = await tx.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
    await audit(tx, p, "apiKey.revoke", "apiKey", id, { revokedAt: null }, { revokedAt: after.revokedAt });
    return after;
  });
  forgetApiKey(row.prefix);
  await publish("apiKeyRevoked", { prefix: row.prefix }).catch(() => {});
  return apiKeyView(row);
}
