// Per-key concurrency (LiteLLM's max_parallel_requests): one tenant's long streams cannot take every upstream
// socket of the shared agent while the other tenants wait and time out.
import { ProxyError } from "./errors";

export class KeyInflight {
  private readonly counts = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Counts a request of `keyId`; returns its release (idempotent), or throws 429 past the cap. */
  acquire(keyId: string): () => void {
    const n = this.counts.get(keyId) ?? 0;
    if (n >= this.max)
      throw new ProxyError(
        429,
        "rate_limit_error",
        `This key already has ${this.max} requests in flight (PROXY_MAX_INFLIGHT_PER_KEY)`,
        "too_many_concurrent_requests",
        null,
        1,
      );
    this.counts.set(keyId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(keyId) ?? 1) - 1;
      if (left > 0) this.counts.set(keyId, left);
      else this.counts.delete(keyId);
    };
  }
}
