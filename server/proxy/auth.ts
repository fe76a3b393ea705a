// Proxy authentication in front of verifyApiKey: a verified key is served from memory and re-verified in
// the background once stale, so neither a hash nor a Postgres round trip ever sits on a hot request, and
// a Postgres outage does not lock out keys that were working. Revocations arrive on the apiKeyRevoked
// channel and take effect at once. What an unauthenticated caller can make this process hold is bounded:
// both caches are LRUs of fixed size, a refused token is remembered for NEGATIVE_MS only, and a client
// address with too many failures in the current minute is refused before any verification.
import type { IncomingMessage } from "node:http";
import { createHash } from "node:crypto";
import { bearerToken, forgetApiKey, verifyApiKey } from "../access/apiKeys";
import { can, type Principal } from "../access/principal";
import { clientAddress } from "../platform/clientAddress";
import { env, settings } from "../platform/env";
import { ProxyError } from "./errors";
import { header } from "./http";
import { Lru } from "./lru";

type Verify = (token: string) => Promise<Principal | null>;

interface Entry {
  principal: Principal | null;
  /** can(principal, "proxy"), computed once per verification. */
  allowed: boolean;
  at: number;
  refreshing: boolean;
}

const FRESH_MS = 30_000;
const NEGATIVE_MS = 5_000;
export const AUTH_CACHE_MAX = 10_000;

export const unauthorized = (msg: string) => new ProxyError(401, "authentication_error", msg, "invalid_api_key");

export interface ProxyAuthOptions {
  verify?: Verify;
  /** Failed authentications per client address per minute (PROXY_AUTH_FAILURES_PER_MIN). */
  failuresPerMin?: number;
  /** TRUSTED_PROXY_HOPS. */
  trustedHops?: number;
}

export class ProxyAuth {
  /** Verified keys (valid ones, and refused ones within NEGATIVE_MS), apart so junk cannot evict real keys. */
  private readonly valid = new Lru<string, Entry>(AUTH_CACHE_MAX);
  private readonly refused = new Lru<string, Entry>(AUTH_CACHE_MAX);
  private readonly failures = new Lru<string, { minute: number; count: number }>(AUTH_CACHE_MAX);
  private readonly verify: Verify;
  private readonly failuresPerMin: number;
  private readonly trustedHops: number;

  constructor(opts: ProxyAuthOptions = {}) {
    this.verify = opts.verify ?? verifyApiKey;
    this.failuresPerMin = opts.failuresPerMin ?? settings("proxy").PROXY_AUTH_FAILURES_PER_MIN;
    this.trustedHops = opts.trustedHops ?? env().TRUSTED_PROXY_HOPS;
  }

  /** Entries held (for the bounded-memory test). */
  get size(): number {
    return this.valid.size + this.refused.size + this.failures.size;
  }

  private async check(token: string, digest: string): Promise<Principal | null> {
    try {
      const principal = await this.verify(token);
      const entry = { principal, allowed: !!principal && can(principal, "proxy"), at: Date.now(), refreshing: false };
      if (principal) {
        this.valid.set(digest, entry);
        this.refused.delete(digest);
      } else {
        this.valid.delete(digest);
        this.refused.set(digest, entry);
      }
      return principal;
    } catch (err) {
      const known = this.valid.get(digest);
      if (known?.principal) {
        known.refreshing = false;
        return known.principal; // Postgres unreachable: keep serving a key that was valid
      }
      throw new ProxyError(
        503,
        "service_unavailable",
        `Cannot verify the API key right now: ${(err as Error).message}`,
        "auth_unavailable",
        null,
        2,
      );
    }
  }

  private failed(client: string, minute: number): void {
    const f = this.failures.get(client);
    this.failures.set(client, f && f.minute === minute ? { minute, count: f.count + 1 } : { minute, count: 1 });
  }

  async authenticate(req: IncomingMessage): Promise<Principal & { kind: "apiKey" }> {
    const client = clientAddress(header(req, "x-forwarded-for"), req.socket.remoteAddress, this.trustedHops);
    const now = Date.now();
    const minute = Math.floor(now / 60_000);
    const token = bearerToken(header(req, "authorization"));
    const digest = token ? createHash("sha256").update(token).digest("base64url") : "";
    const hit = token ? this.valid.get(digest) : undefined;
    if (!hit?.principal) {
      // Only a key already known to be valid skips this: everything else would cost a lookup.
      const f = this.failures.get(client);
      if (f && f.minute === minute && f.count >= this.failuresPerMin) {
        throw new ProxyError(
          429,
          "rate_limit_error",
          `Too many failed authentications from ${client}; retry in ${60 - Math.floor((now / 1000) % 60)} s`,
          "auth_rate_limited",
          null,
          60 - Math.floor((now / 1000) % 60),
        );
      }
    }
    if (!token) {
      this.failed(client, minute);
      throw unauthorized("Missing bearer token: send Authorization: Bearer <API key>");
    }
    let principal: Principal | null;
    let allowed: boolean;
    const negative = this.refused.get(digest);
    if (hit?.principal) {
      principal = hit.principal;
      allowed = hit.allowed;
      if (now - hit.at > FRESH_MS && !hit.refreshing) {
        hit.refreshing = true;
        void this.check(token, digest).catch(() => {});
      }
    } else if (negative && now - negative.at < NEGATIVE_MS) {
      principal = null;
      allowed = false;
    } else {
      principal = await this.check(token, digest);
      allowed = !!principal && can(principal, "proxy");
    }
    if (!principal || principal.kind !== "apiKey") {
      this.failed(client, minute);
      throw unauthorized("Invalid, expired or revoked API key");
    }
    if (!allowed)
      throw new ProxyError(403, "permission_error", "This API key lacks the 'proxy' scope", "insufficient_scope");
    return principal;
  }

  /** A key was revoked: drop it here and in verifyApiKey's own cache. */
  revoke(prefix: string): void {
    forgetApiKey(prefix);
    for (const [k, v] of this.valid.entries())
      if (v.principal?.kind === "apiKey" && v.principal.prefix === prefix) this.valid.delete(k);
  }
}
