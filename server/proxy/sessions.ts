// In-memory state of live sessions, bounded (LRU + idle expiry). Nothing here is authoritative: with Redis
// up the session's order lives there (sessionOrder.ts) and this is a cache that spares the digests a round
// trip; without Redis a session this process does not know (restart, eviction) starts "cold" — its first
// turn stores its full body and its next state is linked by the writer from Postgres.
export type IdSource = "header" | "body" | "stitched";
export type Lane = "MAIN" | "SIDE";

export interface SessionState {
  key: string;
  experimentId: string;
  externalId: string;
  idSource: IdSource;
  keyId: string | null;
  /** Per lane, the message digests of the last recorded body (the base of the next delta). */
  lanes: Partial<Record<Lane, string[]>>;
  /** Per lane, the turn those digests belong to. */
  laneTurns: Partial<Record<Lane, string>>;
  /** The last successful main turn still waiting for its next state. */
  pendingMain: string | null;
  /** Not known to this process before this request: the writer must find the turn to link. */
  cold: boolean;
  /** The latest live stitch registration; a request continuing an older one is a fork (new session). */
  stitchSeq: number;
  /** Text of the latest user message, to recognise a compaction call about this conversation. */
  lastUserText: string | null;
  /** Replies of recent side calls (summaries), to recognise the conversation continuing after compaction. */
  summaries: string[];
  lastSeen: number;
  turns: number;
}

export const sessionKey = (experimentId: string, externalId: string) => `${experimentId}\u0000${externalId}`;

export class SessionTable {
  private readonly map = new Map<string, SessionState>();
  /** Per API key, its most recently active sessions (newest first), for side-call attribution. */
  private readonly byKey = new Map<string, string[]>();

  constructor(
    private readonly opts: { maxSessions: number; idleMs: number } = { maxSessions: 50_000, idleMs: 6 * 3600_000 },
  ) {}

  get(key: string): SessionState | undefined {
    const s = this.map.get(key);
    if (s && Date.now() - s.lastSeen > this.opts.idleMs) {
      this.map.delete(key);
      return undefined;
    }
    return s;
  }

  create(init: Pick<SessionState, "experimentId" | "externalId" | "idSource" | "keyId" | "cold">): SessionState {
    const s: SessionState = {
      ...init,
      key: sessionKey(init.experimentId, init.externalId),
      lanes: {},
      laneTurns: {},
      pendingMain: null,
      stitchSeq: 0,
      lastUserText: null,
      summaries: [],
      lastSeen: Date.now(),
      turns: 0,
    };
    this.map.set(s.key, s);
    if (this.map.size > this.opts.maxSessions) this.map.delete(this.map.keys().next().value!);
    return s;
  }

  /** Marks activity (and keeps the LRU order). */
  touch(s: SessionState): void {
    s.lastSeen = Date.now();
    this.map.delete(s.key);
    this.map.set(s.key, s);
    if (s.keyId) {
      const list = (this.byKey.get(s.keyId) ?? []).filter((k) => k !== s.key);
      list.unshift(s.key);
      this.byKey.set(s.keyId, list.slice(0, 8));
    }
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  /** Sessions of an API key active within `withinMs`, newest first. */
  recentForKey(keyId: string, experimentId: string, withinMs: number): SessionState[] {
    const now = Date.now();
    return (this.byKey.get(keyId) ?? [])
      .map((k) => this.map.get(k))
      .filter((s): s is SessionState => !!s && s.experimentId === experimentId && now - s.lastSeen <= withinMs);
  }

  activeCount(experimentId: string, withinMs = 5 * 60_000): number {
    const now = Date.now();
    let n = 0;
    for (const s of this.map.values()) if (s.experimentId === experimentId && now - s.lastSeen <= withinMs) n++;
    return n;
  }

  get size(): number {
    return this.map.size;
  }
}
