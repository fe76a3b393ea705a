// Runs in its own process (Vitest forks), so a tiny limit here does not affect other files. The limiter's
// clock is pinned to the middle of one window, so the counts below are exact: no window rolls over mid-test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setRateLimitClock } from "../../server/platform/rateLimit";

process.env.API_RATE_LIMIT_PER_MIN = "5";
process.env.LOGIN_RATE_LIMIT_PER_MIN = "3";

let server: { url: string; close: () => Promise<void> };
let makeKey: typeof import("../helpers/fixtures").makeKey;

/** 20 s into a minute window: Retry-After is then exactly 40. */
const PINNED = (Math.floor(Date.now() / 60_000) + 1) * 60_000 + 20_000;

beforeAll(async () => {
  setRateLimitClock(() => PINNED);
  ({ makeKey } = await import("../helpers/fixtures"));
  server = await (await import("../helpers/apiServer")).startApiServer();
});
afterAll(async () => {
  setRateLimitClock(null);
  await server.close();
});

describe("rate limits", () => {
  it("answers 429 with Retry-After and X-RateLimit-* once a key exceeds its per-minute budget, per key", async () => {
    const key = await makeKey(["read"]);
    const responses: Response[] = [];
    for (let i = 0; i < 7; i++) {
      responses.push(await fetch(`${server.url}/api/v1/experiments`, { headers: { authorization: `Bearer ${key}` } }));
    }
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(responses.map((r) => r.headers.get("x-ratelimit-remaining"))).toEqual(["4", "3", "2", "1", "0", "0", "0"]);
    expect(responses[0]!.headers.get("x-ratelimit-limit")).toBe("5");
    expect(responses[0]!.headers.get("retry-after")).toBeNull();
    const limited = responses[6]!;
    expect(limited.headers.get("retry-after")).toBe("40");
    expect(limited.headers.get("x-ratelimit-reset")).toBe("40");
    expect((await limited.json()).error).toMatchObject({ code: "TOO_MANY_REQUESTS", reason: "rate_limited" });
    const otherKey = await makeKey(["read"]);
    expect(
      (await fetch(`${server.url}/api/v1/experiments`, { headers: { authorization: `Bearer ${otherKey}` } })).status,
    ).toBe(200);
  });

  it("spends a key's budget only on requests that verify: junk secrets behind its prefix cannot exhaust it", async () => {
    const key = await makeKey(["read"]);
    const prefix = key.split("_").slice(0, 2).join("_");
    for (let i = 0; i < 7; i++) {
      const junk = await fetch(`${server.url}/api/v1/experiments`, {
        headers: { authorization: `Bearer ${prefix}_${"A".repeat(30)}${i}` },
      });
      expect([401, 429]).toContain(junk.status);
    }
    const real = await fetch(`${server.url}/api/v1/experiments`, { headers: { authorization: `Bearer ${key}` } });
    expect(real.status).toBe(200);
    expect(real.headers.get("x-ratelimit-remaining")).toBe("4");
  });

  it("throttles sign-in attempts", async () => {
    const responses: Response[] = [];
    for (let i = 0; i < 5; i++) {
      responses.push(
        await fetch(`${server.url}/api/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.9" },
          body: JSON.stringify({ email: "x@example.test", password: "nope" }),
        }),
      );
    }
    expect(responses.map((r) => r.status)).toEqual([401, 401, 401, 429, 429]);
    expect(responses[4]!.headers.get("retry-after")).toBe("40");
    expect((await responses[4]!.json()).error).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      reason: "sign_in_throttled",
    });
  });
});
