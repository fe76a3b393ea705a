// An unauthenticated caller cannot make the proxy hold unbounded state or verify without limit: refused tokens
// are remembered in a bounded LRU for a few seconds, and a client address past its failed-auth budget gets 429
// before any verification, while a key already verified keeps working. Own process (Vitest forks): small limit.
import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

process.env.PROXY_AUTH_FAILURES_PER_MIN = "20";

let h: Awaited<ReturnType<typeof import("./setup").harness>>;
let post: typeof import("./setup").post;
let ProxyAuth: typeof import("../../../server/proxy/auth").ProxyAuth;
let AUTH_CACHE_MAX: number;

beforeAll(async () => {
  const setup = await import("./setup");
  ({ ProxyAuth, AUTH_CACHE_MAX } = await import("../../../server/proxy/auth"));
  post = setup.post;
  h = await setup.harness();
});
afterAll(() => h.close());

const chat = { model: "x", messages: [{ role: "user", content: "hi" }] };

describe("proxy authentication under abuse", () => {
  it("refuses a client past its failed-auth budget with 429 before verifying, and keeps serving a verified key", async () => {
    const url = `${h.proxy.url}/v1/chat/completions`;
    expect((await post(url, chat, { authorization: `Bearer ${h.key}` })).status).toBe(200);
    const statuses: number[] = [];
    // 45 failures: however a minute boundary splits them, one window sees more than 20.
    for (let i = 0; i < 45; i++) {
      const r = await post(url, chat, { authorization: `Bearer ocrl_deadbeef_junk${i}AAAAAAAAAAAAAAAAAAAA` });
      statuses.push(r.status);
      if (r.status === 429) expect(r.json.error?.code).toBe("auth_rate_limited");
    }
    expect(statuses).toContain(429);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    expect((await post(url, chat, { authorization: `Bearer ${h.key}` })).status).toBe(200);
  });

  it("holds a bounded number of entries however many distinct junk tokens arrive", async () => {
    const auth = new ProxyAuth({ failuresPerMin: 1_000_000 });
    const n = AUTH_CACHE_MAX * 2 + 500;
    for (let i = 0; i < n; i++) {
      const req = {
        headers: {
          authorization: `Bearer junk-${i}-${"x".repeat(40)}`,
        },
        socket: { remoteAddress: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
      } as unknown as IncomingMessage;
      await expect(auth.authenticate(req)).rejects.toMatchObject({ status: 401 });
    }
    expect(auth.size).toBeLessThanOrEqual(AUTH_CACHE_MAX * 3);
  });
});
