import { describe, expect, it } from "vitest";
import { HttpStatusError } from "../../../server/judge/core/http";
import {
  backoffDelay,
  CircuitBreaker,
  CircuitOpenError,
  isTransientError,
  Limiter,
  retry,
  TimeoutError,
  withTimeout,
} from "../../../server/judge/core/resilience";

const http = (status: number) => new HttpStatusError(status, "http://x", "");

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("CircuitBreaker", () => {
  it("opens after the threshold of consecutive transient failures, then half-opens and recovers", async () => {
    let t = 1_000;
    const breaker = new CircuitBreaker("judge:a", { failureThreshold: 3, resetTimeoutMs: 10_000, now: () => t });
    const fail = () => breaker.run(() => Promise.reject(http(503)));

    for (let i = 0; i < 2; i++) await expect(fail()).rejects.toBeInstanceOf(HttpStatusError);
    expect(breaker.state).toBe("closed");
    await expect(fail()).rejects.toBeInstanceOf(HttpStatusError);
    expect(breaker.state).toBe("open");

    let called = false;
    await expect(breaker.run(async () => (called = true))).rejects.toBeInstanceOf(CircuitOpenError);
    expect(called).toBe(false);

    t += 9_999;
    expect(breaker.state).toBe("open");
    t += 1;
    expect(breaker.state).toBe("half-open");
    await expect(breaker.run(async () => "ok")).resolves.toBe("ok");
    expect(breaker.state).toBe("closed");
  });

  it("a failed half-open trial re-opens the circuit for a full reset period", async () => {
    let t = 0;
    const breaker = new CircuitBreaker("k", { failureThreshold: 1, resetTimeoutMs: 100, now: () => t });
    await expect(breaker.run(() => Promise.reject(http(500)))).rejects.toThrow();
    t = 100;
    expect(breaker.state).toBe("half-open");
    await expect(breaker.run(() => Promise.reject(new TimeoutError(5)))).rejects.toBeInstanceOf(TimeoutError);
    expect(breaker.state).toBe("open");
    t = 199;
    expect(breaker.state).toBe("open");
    t = 200;
    expect(breaker.state).toBe("half-open");
  });

  it("allows only halfOpenMaxCalls trials at once", async () => {
    let t = 0;
    const breaker = new CircuitBreaker("k", {
      failureThreshold: 1,
      resetTimeoutMs: 10,
      halfOpenMaxCalls: 1,
      now: () => t,
    });
    await expect(breaker.run(() => Promise.reject(http(502)))).rejects.toThrow();
    t = 10;
    const gate = deferred<string>();
    const trial = breaker.run(() => gate.promise);
    await expect(breaker.run(async () => "second")).rejects.toBeInstanceOf(CircuitOpenError);
    gate.resolve("first");
    await expect(trial).resolves.toBe("first");
    expect(breaker.state).toBe("closed");
  });

  it("does not count client errors (4xx other than 408/425/429) and resets on success", async () => {
    const breaker = new CircuitBreaker("k", { failureThreshold: 2, now: () => 0 });
    await expect(breaker.run(() => Promise.reject(http(400)))).rejects.toThrow();
    await expect(breaker.run(() => Promise.reject(http(400)))).rejects.toThrow();
    expect(breaker.state).toBe("closed");
    await expect(breaker.run(() => Promise.reject(http(500)))).rejects.toThrow();
    await breaker.run(async () => 1);
    await expect(breaker.run(() => Promise.reject(http(500)))).rejects.toThrow();
    expect(breaker.state).toBe("closed");
  });
});

describe("retry", () => {
  it("retries transient errors with full-jitter exponential backoff", async () => {
    const delays: number[] = [];
    let calls = 0;
    const result = await retry(
      async () => {
        calls++;
        if (calls < 4) throw http(503);
        return "done";
      },
      { retries: 5, baseDelayMs: 100, maxDelayMs: 350, random: () => 0.5, sleep: async (ms) => void delays.push(ms) },
    );
    expect(result).toBe("done");
    expect(calls).toBe(4);
    // 0.5 × min(350, 100·2^k) for k = 0, 1, 2
    expect(delays).toEqual([50, 100, 175]);
  });

  it("gives up after the configured retries and rethrows the last error", async () => {
    let calls = 0;
    const err = http(429);
    await expect(
      retry(
        async () => {
          calls++;
          throw err;
        },
        { retries: 2, sleep: async () => {}, random: () => 0 },
      ),
    ).rejects.toBe(err);
    expect(calls).toBe(3);
  });

  it("does not retry non-transient errors", async () => {
    let calls = 0;
    await expect(
      retry(
        async () => {
          calls++;
          throw new CircuitOpenError("k");
        },
        { retries: 5, sleep: async () => {} },
      ),
    ).rejects.toBeInstanceOf(CircuitOpenError);
    expect(calls).toBe(1);
  });

  it("backoffDelay is uniform in [0, cap)", () => {
    expect(backoffDelay(3, 100, 10_000, () => 0.999)).toBe(799);
    expect(backoffDelay(10, 100, 1_000, () => 0.5)).toBe(500);
    expect(backoffDelay(0, 100, 1_000, () => 0)).toBe(0);
  });
});

describe("isTransientError", () => {
  it("classifies errors", () => {
    expect([500, 502, 503, 408, 425, 429].map((s) => isTransientError(http(s)))).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect([400, 401, 404, 422].map((s) => isTransientError(http(s)))).toEqual([false, false, false, false]);
    expect(isTransientError(new TimeoutError(1))).toBe(true);
    expect(isTransientError(new TypeError("fetch failed"))).toBe(true);
    expect(isTransientError(new TypeError("x is not a function"))).toBe(false);
  });
});

describe("withTimeout", () => {
  it("aborts the signal and rejects with TimeoutError", async () => {
    let seenReason: unknown = null;
    const p = withTimeout(
      20,
      (signal) =>
        new Promise((_, reject) => signal.addEventListener("abort", () => reject((seenReason = signal.reason)))),
    );
    await expect(p).rejects.toBeInstanceOf(TimeoutError);
    expect(seenReason).toBeInstanceOf(TimeoutError);
  });

  it("settles even if the task ignores the signal", async () => {
    await expect(withTimeout(10, () => new Promise(() => {}))).rejects.toBeInstanceOf(TimeoutError);
  });

  it("passes results through and propagates a parent abort", async () => {
    await expect(withTimeout(10_000, async () => 42)).resolves.toBe(42);
    const parent = new AbortController();
    const p = withTimeout(10_000, () => new Promise(() => {}), parent.signal);
    parent.abort(new Error("shutdown"));
    await expect(p).rejects.toThrow("shutdown");
  });
});

describe("Limiter", () => {
  it("runs at most `max` tasks at once, in FIFO order", async () => {
    const limiter = new Limiter(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    let peak = 0;
    const tasks = gates.map((g, i) =>
      limiter.run(async () => {
        started.push(i);
        peak = Math.max(peak, limiter.active);
        await g.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(limiter.pending).toBe(2);
    gates[1].resolve();
    await tasks[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates[0].resolve();
    gates[2].resolve();
    gates[3].resolve();
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3]);
    expect(peak).toBe(2);
    expect(limiter.active).toBe(0);
  });
});
