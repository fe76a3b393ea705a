// Runs in its own process (Vitest forks), so a tiny limit here does not affect other files.
import { afterAll, beforeAll, describe, expect, it } from "vitest";

process.env.API_RATE_LIMIT_PER_MIN = "5";
process.env.LOGIN_RATE_LIMIT_PER_MIN = "3";

let server: { url: string; close: () => Promise<void> };
let makeKey: typeof import("../helpers/fixtures").makeKey;

beforeAll(async () => {
  ({ makeKey } = await import("../helpers/fixtures"));
  server = await (await import("../helpers/apiServer")).startApiServer();
});
afterAll(() => server.close());

describe("rate limits", () => {
  it("answers 429 with Retry-After and X-RateLimit-* once a key exceeds its per-minute budget, per key", async () => {
    const key = await makeKey(["read"]);
    const statuses: number[] = [];
    let last: Response | null = null;
    for (let i = 0; i < 7; i++) {
      last = await fetch(`${server.url}/api/v1/experiments`, { headers: { authorization: `Bearer ${key}` } });
      statuses.push(last.status);
      if (i === 0) {
        expect(last.headers.get("x-ratelimit-limit")).toBe("5");
        expect(last.headers.get("x-ratelimit-remaining")).toBe("4");
      }
    }
    // A fixed window may roll over mid-loop; what must hold is that no more than 5 succeed per window.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(5 * 2);
    expect(statuses).toContain(429);
    const limited = await fetch(`${server.url}/api/v1/experiments`, { headers: { authorization: `Bearer ${key}` } });
    if (limited.status === 429) {
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await limited.json()).error.code).toBe("TOO_MANY_REQUESTS");
    }
    const otherKey = await makeKey(["read"]);
    expect(
      (await fetch(`${server.url}/api/v1/experiments`, { headers: { authorization: `Bearer ${otherKey}` } })).status,
    ).toBe(200);
  });

  it("throttles sign-in attempts", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await fetch(`${server.url}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.9" },
        body: JSON.stringify({ email: "x@example.test", password: "nope" }),
      });
      statuses.push(r.status);
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(3 * 2);
  });
});
