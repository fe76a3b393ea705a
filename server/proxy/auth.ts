// Proxy authentication in front of verifyApiKey: a verified key is served from memory and re-verified in
// the background once stale, so neither scrypt nor a Postgres round trip ever sits on a hot request, and
// a Postgres outage does not lock out keys that were working. Revocations arrive on the apiKeyRevoked
// channel and take effect at once; unknown tokens are remembered briefly (no scrypt per bad request).
import { createHash } from "node:crypto";
import { bearerToken, forgetApiKey, verifyApiKey } from "../access/apiKeys";
import { can, type Principal } from "../access/principal";
import { ProxyError } from "./errors";

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

export const unauthorized = (msg: string) => new ProxyError(401, "authentication_error", msg, "invalid_api_key");

export class ProxyAuth {
  private readonly cache = new Map<string, Entry>();

  constructor(private readonly verify: Verify = verifyApiKey) {}

  private async check(token: string, digest: string): Promise<Principal | null> {
    try {
      const principal = await this.verify(token);
      this.cache.set(digest, {
        principal,
        allowed: !!principal && can(principal, "proxy"),
        at: Date.now(),
        refreshing: false,
      });
      return principal;
    } catch (err) {
      const known = this.cache.get(digest);
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

  async authenticate(authorization: string | undefined): Promise<Principal & { kind: "apiKey" }> {
    const token = bearerToken(authorization);
    if (!token) throw unauthorized("Missing bearer token: send Authorization: Bearer <API key>");
    const digest = createHash("sha256").update(token).digest("base64url");
    const hit = this.cache.get(digest);
    const now = Date.now();
    let principal: Principal | null;
    let allowed: boolean;
    if (hit && (hit.principal ? true : now - hit.at < NEGATIVE_MS)) {
      principal = hit.principal;
      allowed = hit.allowed;
      if (principal && now - hit.at > FRESH_MS && !hit.refreshing) {
        hit.refreshing = true;
        void this.check(token, digest).catch(() => {});
      }
    } else {
      principal = await this.check(token, digest);
      allowed = !!principal && can(principal, "proxy");
    }
    if (!principal || principal.kind !== "apiKey") throw unauthorized("Invalid, expired or revoked API key");
    if (!allowed)
      throw new ProxyError(403, "permission_error", "This API key lacks the 'proxy' scope", "insufficient_scope");
    return principal;
  }

  /** A key was revoked: drop it here and in verifyApiKey's own cache. */
  revoke(prefix: string): void {
    forgetApiKey(prefix);
    for (const [k, v] of this.cache)
      if (v.principal?.kind === "apiKey" && v.principal.prefix === prefix) this.cache.delete(k);
  }
}
