// Session stitching for clients that send no session id (stock OpenClaw, any OpenAI client): after each
// main turn we remember the hash of "its normalized request + the reply it got"; a later request whose
// normalized messages start with such a prefix (and add something) continues that conversation.
// Hashes chain message by message, so one pass over a request gives every prefix's hash.
import { createHash } from "node:crypto";

export interface StitchTarget {
  sessionKey: string;
  /** The session's stitch sequence when registered: only the latest continuation is live (older = a fork). */
  seq: number;
}

/**
 * Where stitch hashes survive a restart and are shared between proxy replicas (Redis in production). The
 * store holds only each session's live registration (the session order script moves it), so a hit there is
 * a live continuation; getMany resolves null when the store could not answer.
 */
export interface StitchStore {
  getMany(hashes: string[]): Promise<(StitchTarget | null)[] | null>;
  /** The store's key of a hash (the session order script writes it). */
  keyOf(hash: string): string;
  set(hash: string, target: StitchTarget): void;
  delete(hash: string): void;
}

/**
 * Chains start from the experiment *and the API key*: two keys whose conversations open the same way (the same
 * system prompt, "hi", the same greedy reply) are never stitched into one session (one user's message would
 * become the next state, and the reward, of the other's turn).
 */
export function chainSeed(experimentId: string, keyId: string | null): string {
  return createHash("sha1")
    .update(`stitch:${experimentId}:${keyId ?? ""}`)
    .digest("base64url");
}

export function extendChain(prev: string, normalized: string): string {
  return createHash("sha1").update(prev).update("\n").update(normalized).digest("base64url");
}

/** h[k] is the hash of the first k+1 normalized messages. */
export function chainHashes(experimentId: string, keyId: string | null, normalized: readonly string[]): string[] {
  const out: string[] = [];
  let h = chainSeed(experimentId, keyId);
  for (const n of normalized) out.push((h = extendChain(h, n)));
  return out;
}

export interface StitchMatch {
  target: StitchTarget;
  /** Number of normalized messages the matched prefix covers. */
  length: number;
}

export class StitchIndex {
  private readonly map = new Map<string, { target: StitchTarget; at: number }>();
  /** Each session's live registration, so a closed session can no longer be continued. */
  private readonly latest = new Map<string, string>();

  constructor(
    private readonly opts: { maxEntries: number; ttlMs: number; store?: StitchStore | null; now?: () => number } = {
      maxEntries: 200_000,
      ttlMs: 24 * 3600_000,
    },
  ) {}

  private now() {
    return (this.opts.now ?? Date.now)();
  }

  register(hash: string, target: StitchTarget): void {
    this.registerLocal(hash, target);
    this.opts.store?.set(hash, target);
  }

  forgetSession(sessionKey: string): void {
    const hash = this.latest.get(sessionKey);
    if (!hash) return;
    this.latest.delete(sessionKey);
    this.map.delete(hash);
    this.opts.store?.delete(hash);
  }

  /** The longest registered proper prefix of `chain` (at least one new message must follow it). */
  lookupLocal(chain: readonly string[]): StitchMatch | null {
    const now = this.now();
    for (let k = chain.length - 2; k >= 0; k--) {
      const hit = this.map.get(chain[k]!);
      if (!hit) continue;
      if (now - hit.at > this.opts.ttlMs) {
        this.map.delete(chain[k]!);
        continue;
      }
      return { target: hit.target, length: k + 1 };
    }
    return null;
  }

  /**
   * The shared store decides when it answers (another replica may have registered the continuation, or
   * moved the session past what this process remembers); this process's memory only while it cannot.
   */
  async lookup(chain: readonly string[]): Promise<(StitchMatch & { shared: boolean }) | null> {
    if (chain.length < 2) return null;
    const found = this.opts.store ? await this.opts.store.getMany(chain.slice(0, -1)).catch(() => null) : null;
    if (!found) {
      const local = this.lookupLocal(chain);
      return local && { ...local, shared: false };
    }
    for (let k = found.length - 1; k >= 0; k--) {
      const t = found[k];
      if (t) return { target: t, length: k + 1, shared: true };
    }
    return null;
  }

  get store(): StitchStore | null {
    return this.opts.store ?? null;
  }

  /** Remembers a registration the session order script already made live in the store. */
  registerLocal(hash: string, target: StitchTarget): void {
    this.map.delete(hash);
    this.map.set(hash, { target, at: this.now() });
    if (this.map.size > this.opts.maxEntries) this.map.delete(this.map.keys().next().value!);
    this.latest.delete(target.sessionKey);
    this.latest.set(target.sessionKey, hash);
    if (this.latest.size > this.opts.maxEntries) this.latest.delete(this.latest.keys().next().value!);
  }

  get size(): number {
    return this.map.size;
  }
}
