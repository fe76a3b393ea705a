// API keys look like `ocrl_<8 hex prefix>_<32 byte secret>`. Only a scrypt hash is stored; the prefix
// is the lookup handle. Verified keys are cached briefly (scrypt per proxy request would cost ~50 ms).
import { createHash, randomBytes } from "node:crypto";
import { db } from "../platform/db/client";
import { hashSecret, verifySecret } from "./password";
import { SCOPES, type Principal, type Scope } from "./principal";

const CACHE_TTL_MS = 30_000;
const cache = new Map<string, { principal: Principal; expires: number }>();

export interface GeneratedKey {
  plaintext: string;
  prefix: string;
  secretHash: string;
}

export async function generateApiKey(): Promise<GeneratedKey> {
  const prefix = `ocrl_${randomBytes(4).toString("hex")}`;
  const plaintext = `${prefix}_${randomBytes(24).toString("base64url")}`;
  return { plaintext, prefix, secretHash: await hashSecret(plaintext) };
}

export function parseKeyPrefix(token: string): string | null {
  const m = /^(ocrl_[0-9a-f]{8})_[A-Za-z0-9_-]{20,}$/.exec(token);
  return m ? m[1]! : null;
}

const digest = (token: string) => createHash("sha256").update(token).digest("hex");

/** Returns the key's principal, or null for unknown, revoked, expired or malformed keys. */
export async function verifyApiKey(token: string): Promise<Principal | null> {
  const prefix = parseKeyPrefix(token);
  if (!prefix) return null;
  const cacheKey = digest(token);
  const hit = cache.get(cacheKey);
  if (hit && hit.expires > Date.now()) return hit.principal;
  const row = await db().apiKey.findUnique({ where: { prefix } });
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt < new Date())) return null;
  if (!(await verifySecret(token, row.secretHash))) return null;
  const principal: Principal = {
    kind: "apiKey",
    keyId: row.id,
    prefix: row.prefix,
    scopes: row.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s)),
    experimentId: row.experimentId,
    createdById: row.createdById,
  };
  cache.set(cacheKey, { principal, expires: Date.now() + CACHE_TTL_MS });
  // lastUsedAt is advisory: update at most once per cache period, off the request path.
  void db()
    .apiKey.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } })
    .catch(() => {});
  return principal;
}

export function forgetApiKey(prefix: string): void {
  for (const [k, v] of cache) if (v.principal.kind === "apiKey" && v.principal.prefix === prefix) cache.delete(k);
}

export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return m ? m[1]! : null;
}
