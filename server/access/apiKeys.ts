// API keys look like `ocrl_<8 hex prefix>_<24 random bytes>`. Only a hash is stored; the prefix is the lookup
// handle. The secret is 192 random bits, so a keyed HMAC-SHA256 (key derived from SECRET_KEY) is as strong as
// a slow hash and costs microseconds: a guessed secret behind a real prefix no longer buys a 50 ms scrypt.
// Keys hashed with scrypt before still verify, and are rehashed with the HMAC on their first use.
import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { db } from "../platform/db/client";
import { env } from "../platform/env";
import { verifySecret } from "./password";
import { publish, subscribe } from "../platform/bus/pubsub";
import { KEY_SCOPES, type KeyScope, type Principal } from "./principal";

const HMAC_PREFIX = "hmac-sha256$";

function hmacKey(): Buffer {
  return Buffer.from(hkdfSync("sha256", env().SECRET_KEY, "ocrl-api-keys", "hmac-sha256", 32));
}

export function hashApiKey(plaintext: string): string {
  return HMAC_PREFIX + createHmac("sha256", hmacKey()).update(plaintext).digest("base64url");
}

/** Checks a presented key against its stored hash; `rehash` is set when the stored one is a legacy scrypt hash. */
async function checkKeyHash(token: string, stored: string): Promise<{ ok: boolean; rehash: boolean }> {
  if (stored.startsWith(HMAC_PREFIX)) {
    const expected = Buffer.from(stored);
    const actual = Buffer.from(hashApiKey(token));
    return { ok: actual.length === expected.length && timingSafeEqual(actual, expected), rehash: false };
  }
  const ok = await verifySecret(token, stored);
  return { ok, rehash: ok };
}

const CACHE_TTL_MS = 30_000;
const cache = new Map<string, { principal: Principal; expires: number }>();

export interface GeneratedKey {
  plaintext: string;
  prefix: string;
  secretHash: string;
}

export function generateApiKey(): GeneratedKey {
  const prefix = `ocrl_${randomBytes(4).toString("hex")}`;
  const plaintext = `${prefix}_${randomBytes(24).toString("base64url")}`;
  return { plaintext, prefix, secretHash: hashApiKey(plaintext) };
}

export function parseKeyPrefix(token: string): string | null {
  const m = /^(ocrl_[0-9a-f]{8})_[A-Za-z0-9_-]{20,}$/.exec(token);
  return m ? m[1]! : null;
}

const digest = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * Revocations made by another process (a user's keys suspended, a run's trainer key revoked) drop this
 * process's cached principal at once instead of after CACHE_TTL_MS. Subscribed on the first verification;
 * while Redis is away the TTL still bounds it.
 */
let revocations: Promise<unknown> | null = null;
function followRevocations(): void {
  revocations ??= subscribe("apiKeyRevoked", (m) => forgetApiKey(m.prefix)).catch(() => {
    revocations = null;
  });
}

/** Returns the key's principal, or null for unknown, revoked, expired or malformed keys. */
export async function verifyApiKey(token: string): Promise<Principal | null> {
  const prefix = parseKeyPrefix(token);
  if (!prefix) return null;
  followRevocations();
  const cacheKey = digest(token);
  const hit = cache.get(cacheKey);
  if (hit && hit.expires > Date.now()) return hit.principal;
  const row = await db().apiKey.findUnique({
    where: { prefix },
    include: { createdBy: { select: { role: true, disabledAt: true } } },
  });
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt < new Date())) return null;
  // Keys are minted by admins: one whose creator is disabled or no longer an admin is suspended (offboarding).
  if (row.createdBy && (row.createdBy.disabledAt || row.createdBy.role !== "ADMIN")) return null;
  const checked = await checkKeyHash(token, row.secretHash);
  if (!checked.ok) return null;
  if (checked.rehash) {
    // Only the legacy hash is replaced: a concurrent rehash writes the same value.
    await db()
      .apiKey.updateMany({ where: { id: row.id, secretHash: row.secretHash }, data: { secretHash: hashApiKey(token) } })
      .catch(() => {});
  }
  const principal: Principal = {
    kind: "apiKey",
    keyId: row.id,
    prefix: row.prefix,
    scopes: row.scopes.filter((s): s is KeyScope => (KEY_SCOPES as readonly string[]).includes(s)),
    experimentId: row.experimentId,
    runId: row.runId,
    endUserId: row.endUserId,
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

/**
 * A user was disabled or lost the admin role: the keys they created stop working at once (verification also
 * refuses them, see verifyApiKey), in this process and, through apiKeyRevoked, in every proxy.
 */
export async function suspendKeysOf(userId: string): Promise<void> {
  const keys = await db().apiKey.findMany({
    where: { createdById: userId, revokedAt: null },
    select: { prefix: true },
  });
  for (const k of keys) {
    forgetApiKey(k.prefix);
    await publish("apiKeyRevoked", { prefix: k.prefix }).catch(() => {});
  }
}
