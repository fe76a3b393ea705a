// Resilience for calls to judge and teacher endpoints: per-endpoint circuit breaker, timeouts via
// AbortSignal, retries with exponential backoff and full jitter, and a concurrency limiter.
// Clock, sleep and randomness are injectable so tests can drive them deterministically.
import { HttpStatusError } from "./http";

export class TimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = "TimeoutError";
  }
}

export class CircuitOpenError extends Error {
  constructor(readonly key: string) {
    super(`circuit open for ${key}`);
    this.name = "CircuitOpenError";
  }
}

/**
 * Transient failures worth retrying, which are also the ones that say "this endpoint is unhealthy":
 * timeouts, network errors (fetch throws TypeError), 408/425/429 and 5xx.
 */
export function isTransientError(err: unknown): boolean {
  if (err instanceof TimeoutError) return true;
  if (err instanceof HttpStatusError)
    return err.status === 408 || err.status === 425 || err.status === 429 || err.status >= 500;
  // undici reports connection failures as `TypeError: fetch failed`.
  return err instanceof TypeError && /fetch failed|network|socket/i.test(err.message);
}

export type Clock = () => number;
export type CircuitState = "closed" | "open" | "half-open";

export type BreakerOptions = {
  /** Consecutive transient failures that open the circuit. */
  failureThreshold?: number;
  /** How long the circuit stays open before letting trial calls through. */
  resetTimeoutMs?: number;
  /** Trial calls allowed at once while half-open. */
  halfOpenMaxCalls?: number;
  now?: Clock;
  isFailure?: (err: unknown) => boolean;
};

export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private opened = false;
  private trials = 0;
  private readonly failureThreshold: number;
  private readonly resetTimeoutMs: number;
  private readonly halfOpenMaxCalls: number;
  private readonly now: Clock;
  private readonly isFailure: (err: unknown) => boolean;

  constructor(
    readonly key: string,
    opts: BreakerOptions = {},
  ) {
    this.failureThreshold = opts.failureThreshold ?? 5;
    this.resetTimeoutMs = opts.resetTimeoutMs ?? 30_000;
    this.halfOpenMaxCalls = opts.halfOpenMaxCalls ?? 1;
    this.now = opts.now ?? Date.now;
    this.isFailure = opts.isFailure ?? isTransientError;
  }

  get state(): CircuitState {
    if (!this.opened) return "closed";
    return this.now() - this.openedAt >= this.resetTimeoutMs ? "half-open" : "open";
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const state = this.state;
    if (state === "open") throw new CircuitOpenError(this.key);
    const trial = state === "half-open";
    if (trial) {
      if (this.trials >= this.halfOpenMaxCalls) throw new CircuitOpenError(this.key);
      this.trials++;
    }
    try {
      const result = await fn();
      this.failures = 0;
      this.opened = false;
      return result;
    } catch (err) {
      if (this.isFailure(err)) {
        this.failures++;
        if (trial || this.failures >= this.failureThreshold) {
          this.opened = true;
          this.openedAt = this.now();
        }
      }
      throw err;
    } finally {
      if (trial) this.trials--;
    }
  }
}

/** One breaker per endpoint key (base URL), created on first use. */
export class BreakerRegistry {
  private readonly breakers = new Map<string, CircuitBreaker>();
  constructor(private readonly opts: BreakerOptions = {}) {}

  get(key: string): CircuitBreaker {
    let breaker = this.breakers.get(key);
    if (!breaker) {
      breaker = new CircuitBreaker(key, this.opts);
      this.breakers.set(key, breaker);
    }
    return breaker;
  }
}

/**
 * Runs `fn` with a signal that aborts after `ms` (or when `parent` aborts). Settles even if `fn`
 * ignores the signal; a timeout always surfaces as TimeoutError.
 */
export async function withTimeout<T>(
  ms: number,
  fn: (signal: AbortSignal) => Promise<T>,
  parent?: AbortSignal,
): Promise<T> {
  if (parent?.aborted) throw parent.reason;
  const controller = new AbortController();
  let timedOut = false;
  let rejectAbort: (reason: unknown) => void = () => {};
  const aborted = new Promise<never>((_, reject) => (rejectAbort = reject));
  const timer = setTimeout(() => {
    timedOut = true;
    const err = new TimeoutError(ms);
    controller.abort(err);
    rejectAbort(err);
  }, ms);
  const onParentAbort = () => {
    controller.abort(parent?.reason);
    rejectAbort(parent?.reason);
  };
  parent?.addEventListener("abort", onParentAbort, { once: true });
  try {
    return await Promise.race([fn(controller.signal), aborted]);
  } catch (err) {
    if (timedOut) throw new TimeoutError(ms);
    throw err;
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener("abort", onParentAbort);
  }
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

export type RetryOptions = {
  /** Extra attempts after the first. */
  retries: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  sleep?: Sleep;
  random?: () => number;
  isRetryable?: (err: unknown) => boolean;
  signal?: AbortSignal;
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
};

/** "Full jitter" backoff: uniform in [0, min(max, base·2^attempt)). */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number, random: () => number): number {
  return Math.floor(random() * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt));
}

export async function retry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const base = opts.baseDelayMs ?? 500;
  const max = opts.maxDelayMs ?? 10_000;
  const sleep = opts.sleep ?? realSleep;
  const random = opts.random ?? Math.random;
  const isRetryable = opts.isRetryable ?? isTransientError;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= opts.retries || !isRetryable(err) || opts.signal?.aborted) throw err;
      const delayMs = backoffDelay(attempt, base, max, random);
      opts.onRetry?.({ attempt, delayMs, error: err });
      await sleep(delayMs, opts.signal);
    }
  }
}

/** FIFO concurrency limiter: at most `max` tasks run at once. */
export class Limiter {
  private running = 0;
  private readonly queue: (() => void)[] = [];
  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError("limiter max must be a positive integer");
  }

  get active(): number {
    return this.running;
  }
  get pending(): number {
    return this.queue.length;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.running++;
    try {
      return await fn();
    } finally {
      const next = this.queue.shift();
      // Hand the slot straight to the next waiter so `running` never dips below the true count.
      if (next) next();
      else this.running--;
    }
  }
}

/** The standard wrapping for one remote call: limiter → retries → breaker → timeout. */
export function resilientCall<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  opts: {
    limiter: Limiter;
    breaker: CircuitBreaker;
    timeoutMs: number;
    retry: Omit<RetryOptions, "signal">;
    signal?: AbortSignal;
  },
): Promise<T> {
  return opts.limiter.run(() =>
    retry(() => opts.breaker.run(() => withTimeout(opts.timeoutMs, fn, opts.signal)), {
      ...opts.retry,
      signal: opts.signal,
    }),
  );
}
