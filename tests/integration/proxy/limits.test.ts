// Abuse limits on the proxy: a per-key request budget (429 with Retry-After and X-RateLimit-*) and a cap on
// the number of messages. Runs in its own process (Vitest forks), so the small limits stay local to it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";

process.env.PROXY_RATE_LIMIT_PER_MIN = "4";
process.env.PROXY_MAX_MESSAGES = "3";

let h: Awaited<ReturnType<typeof import("./setup").harness>>;
let post: typeof import("./setup").post;
let makeKey: typeof import("../../helpers/fixtures").makeKey;

beforeAll(async () => {
  const setup = await import("./setup");
  ({ makeKey } = await import("../../helpers/fixtures"));
  post = setup.post;
  h = await setup.harness();
});
afterAll(() => h.close());

const chat = (n = 1) => ({
  model: "x",
  messages: Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `m${i}` })),
});

describe("proxy abuse limits", () => {
  it("answers 429 with Retry-After and X-RateLimit-* once a key exceeds its per-minute budget, per key", async () => {
    const url = `${h.proxy.url}/v1/chat/completions`;
    const statuses: number[] = [];
    let first: Headers | null = null;
    for (let i = 0; i < 10; i++) {
      const r = await post(url, chat(), { authorization: `Bearer ${h.key}` });
      statuses.push(r.status);
      first ??= r.headers;
      if (r.status === 429) {
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(r.json.error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
      }
    }
    expect(first!.get("x-ratelimit-limit")).toBe("4");
    // A fixed window may roll over mid-loop: at most 4 per window succeed, and some are refused.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(8);
    expect(statuses).toContain(429);
    // Feedback draws on the same budget: a flooding key is refused there too (5 tries exceed one window's 4).
    const feedback: number[] = [];
    for (let i = 0; i < 5; i++)
      feedback.push(
        (await post(`${h.proxy.url}/v1/feedback`, { session_id: "s", value: 1 }, { authorization: `Bearer ${h.key}` }))
          .status,
      );
    expect(feedback).toContain(429);
    const other = await makeKey(["proxy"], h.experiment.id);
    expect((await post(url, chat(), { authorization: `Bearer ${other}` })).status).toBe(200);
  });

  it("refuses more messages than PROXY_MAX_MESSAGES with 400 naming the field", async () => {
    const key = await makeKey(["proxy"], h.experiment.id);
    const r = await post(`${h.proxy.url}/v1/chat/completions`, chat(5), { authorization: `Bearer ${key}` });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ type: "invalid_request_error", param: "messages" });
    expect(r.json.error!.message).toMatch(/at most 3/);
  });
});

describe("the proxy's reserving rate limiter across replicas (real Redis)", () => {
  it("never admits more than the limit in a window, and at most replicas × 2 × chunk fewer", async () => {
    const { createRedis } = await import("../../../server/platform/redis");
    const { ReservingRateLimiter } = await import("../../../server/platform/rateLimit");
    const redis = createRedis();
    try {
      // A fixed clock keeps the burst in one window; three limiters stand for three replicas' processes.
      const now = () => 1_700_000_000_000;
      const bucket = `replicas-${Date.now()}`;
      const limit = 2000;
      const replicas = [0, 1, 2].map(() => new ReservingRateLimiter({ bucket, limit, client: redis, now }));
      const chunk = replicas[0]!.chunk;
      expect(chunk).toBe(10);
      const decisions = await Promise.all(Array.from({ length: 2600 }, (_, i) => replicas[i % 3]!.hit("key-1")));
      const admitted = decisions.filter((d) => d.allowed).length;
      expect(admitted).toBeLessThanOrEqual(limit);
      expect(admitted).toBeGreaterThanOrEqual(limit - replicas.length * 2 * chunk);
      // Another key has its own budget.
      expect((await replicas[0]!.hit("key-2")).allowed).toBe(true);
    } finally {
      redis.disconnect();
    }
  });
});
