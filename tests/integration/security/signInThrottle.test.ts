// Sign-in throttling that no header defeats: the per-address budget uses only what trusted proxies wrote, and a
// per-account failure backoff applies whatever address a guess comes from. Both keep counting (in memory) while
// Redis is unreachable. Own process (Vitest forks): the settings below stay local to it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";

process.env.TRUSTED_PROXY_HOPS = "1";
process.env.LOGIN_FREE_FAILURES = "3";
process.env.LOGIN_RATE_LIMIT_PER_MIN = "1000";

let server: { url: string; close: () => Promise<void> };
let makeUser: typeof import("../../helpers/fixtures").makeUser;
let rateLimit: typeof import("../../../server/platform/rateLimit");

beforeAll(async () => {
  ({ makeUser } = await import("../../helpers/fixtures"));
  rateLimit = await import("../../../server/platform/rateLimit");
  server = await (await import("../../helpers/apiServer")).startApiServer();
});
afterAll(() => server.close());

const attempt = (email: string, password: string, xff: string) =>
  fetch(`${server.url}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": xff },
    body: JSON.stringify({ email, password }),
  });

describe("sign-in throttle", () => {
  it("keeps throttling one account's guesses when every attempt comes with a different X-Forwarded-For", async () => {
    const u = await makeUser("VIEWER");
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await attempt(u.email, "wrong-password", `10.9.${i}.1, 203.0.113.${i + 1}`);
      statuses.push(r.status);
      if (r.status === 429) {
        expect((await r.json()).error.message).toMatch(/failed sign-ins for this account/);
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      }
    }
    // Three free failures, then the account waits: the rest are refused before the password is checked.
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.slice(3)).toContain(429);
    // Another account is not affected.
    const other = await makeUser("VIEWER");
    expect((await attempt(other.email, other.password, "203.0.113.200")).status).toBe(200);
  });

  it("counts in memory when Redis does not answer, for the failure backoff and the fixed-window limit", async () => {
    const dead = new Redis("redis://127.0.0.1:1", {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
    });
    const backoff = new rateLimit.FailureBackoff({ bucket: "t", free: 2, maxSeconds: 60, client: () => dead });
    expect(await backoff.failed("acct")).toBe(0);
    expect(await backoff.failed("acct")).toBe(1);
    expect(await backoff.waitSeconds("acct")).toBeGreaterThan(0);
    await backoff.succeeded("acct");
    expect(await backoff.waitSeconds("acct")).toBe(0);
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push((await rateLimit.hitRateLimit("t", "who", 2, 3600, dead)).allowed);
    expect(decisions).toEqual([true, true, false, false]);
    dead.disconnect();
  });
});
