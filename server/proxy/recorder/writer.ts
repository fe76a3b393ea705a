// The recording writer: the request path pushes events and returns; this loop writes them to Postgres in
// batches (group commit: whatever queued while the previous batch was written forms the next one).
// When Postgres is unreachable — or slower than the traffic — events go to the on-disk buffer in order and
// are replayed when it answers again. Every write is idempotent (turns by requestId, labels by id, next
// states only onto unlinked turns), so a batch replayed after an unknown outcome records nothing twice.
// Every pushed event is first appended to the write-ahead journal (recorder/journal.ts), synchronously, so a
// turn the client got a 2xx for survives a SIGKILL before its batch commits (and a power loss once its group
// fsync ran, at most `journalFsyncMs` later): at start, journals of dead processes are moved into the disk
// buffer (behind older segments, ahead of anything new) and replayed. `lossy` counts the acknowledged events
// that have no durable copy (journal append or fsync failed, or a recovered journal did not fit the buffer).
// A next state whose turn is not stored yet waits in Postgres, written in the same transaction as the turn that
// carries it (apply.ts), not in this process: it is linked whichever turn commits second, even if this replica
// dies or is never restarted. Labels for a turn not stored yet wait here (journaled, retried).
// A batch is one transaction: plan.ts decides what it writes, apply.ts runs it; this file is the queue.
import path from "node:path";
import { appendFile, rm } from "node:fs/promises";
import pg from "pg";
import { DiskBuffer, readEvents } from "./diskBuffer";
import { Journal, leftoverJournals } from "./journal";
import type { LabelEvent, RecordEvent, TurnEvent } from "./events";
import { applyBatch } from "./apply";
import type { SessionInfo } from "./plan";
import { insertBlobs, type JudgeItem } from "./sql";

export interface WriterOptions {
  databaseUrl: string;
  /** Directory of the durable buffer (segments, the write-ahead journals, rejected.jsonl for events Postgres refused). */
  bufferDir: string;
  bufferMaxBytes: number;
  /** Group fsync interval of the write-ahead journal (PROXY_JOURNAL_FSYNC_MS); 0 or unset: no fsync. */
  journalFsyncMs?: number;
  /** The journal's fsync; a test replaces it to fail like a dying disk. */
  journalFdatasync?: (fd: number) => Promise<void>;
  batchSize?: number;
  /** In-memory events beyond this go to disk even while Postgres is up (backpressure). */
  maxQueue?: number;
  /** How long a small batch waits for more events: one transaction per ~lingerMs instead of per turn. */
  lingerMs?: number;
  probeIntervalMs?: number;
  /** Turns ready for the judge (next state linked, or session ended), after their batch committed. */
  onJudge: (items: JudgeItem[]) => void;
  /** A turn Postgres refused: its session's compact-storage chain must restart. */
  onTurnRejected?: (e: TurnEvent) => void;
  log?: (msg: string) => void;
}

/** Postgres errors about the data (class 22 data exception, 23 integrity) versus everything else. */
function sqlState(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

export function isConnectionError(err: unknown): boolean {
  const state = sqlState(err);
  if (state) return state.startsWith("08") || state.startsWith("57P") || state === "53300";
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code.startsWith("E")) return true; // ECONNREFUSED, ECONNRESET, ETIMEDOUT…
  return /connect|terminat|timeout|closed|ended/i.test((err as Error)?.message ?? "");
}

const LABEL_RETRY_MS = 500;
/** drain() waits for deferred events this young; an older one's turn may never come (refused, lost). */
const DRAIN_WAITS_FOR_MS = 10_000;

const isIndexConflict = (err: unknown) =>
  sqlState(err) === "23505" &&
  /turns_sessionId_index_key/.test((err as Error).message + String((err as { constraint?: string }).constraint));
const isTransient = (err: unknown) => ["40001", "40P01", "55P03"].includes(sqlState(err) ?? "");

export class RecordingWriter {
  private readonly pool: pg.Pool;
  private readonly disk: DiskBuffer;
  private readonly journal: Journal;
  private journalBroken = false;
  private queue: RecordEvent[] = [];
  private inFlight = 0;
  private mode: "memory" | "disk" = "memory";
  private diskPending: RecordEvent[] = [];
  private diskFlushScheduled = false;
  private diskWrites = 0;
  private readonly sessions = new Map<string, SessionInfo>();
  private readonly shipped = new Set<string>();
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private idleWaiters: (() => void)[] = [];
  private syncTimer: NodeJS.Timeout | null = null;
  private readonly batchSize: number;
  private readonly maxQueue: number;
  private readonly probeMs: number;
  private readonly lingerMs: number;
  private draining = 0;
  /** Labels waiting for their turn (journaled; queued again after LABEL_RETRY_MS). */
  private readonly deferred = new Map<NodeJS.Timeout, number>();
  /** Set after an index conflict that a retry did not resolve: the batch appends instead of using given indices. */
  private reindex = false;
  readonly stats = {
    turns: 0,
    labels: 0,
    batches: 0,
    rejected: 0,
    spilled: 0,
    replayed: 0,
    dbErrors: 0,
    journalErrors: 0,
    journalSyncErrors: 0,
    recovered: 0,
    /** Recovered journal events the disk buffer had no room for: gone. */
    recoveryDropped: 0,
    /** Labels retried later and next states left waiting in Postgres, because their turn was not stored yet. */
    deferred: 0,
    reindexed: 0,
  };
  lastError: string | null = null;

  constructor(private readonly opts: WriterOptions) {
    this.pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: 3,
      connectionTimeoutMillis: 3000,
      idleTimeoutMillis: 30_000,
      query_timeout: 30_000,
    });
    this.pool.on("error", () => {}); // an idle client lost its connection: the next checkout reconnects
    // A checked-out client whose socket resets between queries emits 'error' on itself, not on the pool;
    // unhandled, that would crash the proxy during a Postgres outage. The failing query reports it instead.
    this.pool.on("connect", (client) => client.on("error", () => {}));
    this.disk = new DiskBuffer(opts.bufferDir, opts.bufferMaxBytes);
    this.journal = new Journal(opts.bufferDir, {
      fsyncMs: opts.journalFsyncMs ?? 0,
      fdatasync: opts.journalFdatasync,
      onSyncError: (err, lines) => {
        if (this.stats.journalSyncErrors++ === 0)
          this.log(
            `could not fsync the journal (${err.message}): ${lines} acknowledged event(s) may not survive a power loss`,
          );
      },
    });
    this.batchSize = opts.batchSize ?? 256;
    this.maxQueue = opts.maxQueue ?? 20_000;
    this.probeMs = opts.probeIntervalMs ?? 1000;
    this.lingerMs = opts.lingerMs ?? 10;
  }

  private log(msg: string) {
    (this.opts.log ?? ((m: string) => console.warn(`[recorder] ${m}`)))(msg);
  }

  async start(): Promise<void> {
    await this.disk.open();
    await this.recoverJournals();
    // Leftovers of an earlier process are written before anything new, so per-session order holds.
    if (!this.disk.empty) {
      this.log(`replaying ${this.disk.depth} buffered events from an earlier run`);
      this.mode = "disk";
    }
    this.running = true;
    this.syncTimer = setInterval(() => void this.disk.sync().catch(() => {}), 1000);
    this.syncTimer.unref();
    this.loop = this.run();
  }

  /**
   * Journals of processes that died (SIGKILL, crash) before their events settled: appended to the disk buffer
   * (after the segments already there, which are older) and fsynced before they are deleted. Many of their
   * events were committed already; the replay skips those by requestId / label id.
   */
  private async recoverJournals(): Promise<void> {
    const files = await leftoverJournals(this.disk.dir);
    if (!files.length) return;
    const dropped = this.disk.dropped;
    let events = 0;
    for (const file of files) {
      const read = await readEvents(file);
      if (read.skipped) this.log(`${read.skipped} unreadable line(s) in ${path.basename(file)} (torn write) skipped`);
      await this.disk.append(read.events);
      events += read.events.length;
    }
    await this.disk.rotate();
    for (const file of files) await rm(file, { force: true });
    this.stats.recovered += events;
    this.log(`recovered ${events} journaled events from ${files.length} file(s) of stopped processes`);
    this.stats.recoveryDropped += this.disk.dropped - dropped;
    if (this.disk.dropped > dropped)
      this.log(
        `${this.disk.dropped - dropped} recovered events did not fit in the buffer (PROXY_BUFFER_MAX_BYTES): lost`,
      );
  }

  /** Queue depth: in memory, being written, and on disk. */
  get depth(): number {
    return this.queue.length + this.inFlight + this.diskPending.length + this.disk.depth;
  }

  get degraded(): boolean {
    return this.mode === "disk";
  }

  get bufferFull(): boolean {
    return this.disk.full;
  }

  /** The last journal append or fsync failed: events accepted now are not crash-safe (the proxy may refuse them). */
  get journalFailing(): boolean {
    return this.journalBroken || this.journal.syncFailing;
  }

  /**
   * `recording.lossy`: acknowledged events this process could not keep durably — journal appends that failed
   * (the event lives only in memory until its batch commits), lines a failed fsync left unsynced, and
   * recovered journal events the disk buffer had no room for. An event the buffer drops while its journal
   * line is intact is not counted: the next start replays it.
   */
  get lossy(): number {
    return this.stats.journalErrors + this.journal.stats.lossy + this.stats.recoveryDropped;
  }

  /** Group fsyncs of the journal so far. */
  get journalFsyncs(): number {
    return this.journal.stats.fsyncs;
  }

  /** Fsyncs every journal line appended so far (tests; shutdown does it itself). */
  syncJournal(): Promise<void> {
    return this.journal.sync();
  }

  get dropped(): number {
    return this.disk.dropped;
  }

  get bufferBytes(): number {
    return this.disk.bytes;
  }

  /** True the first time this process sees a blob: that event must carry its content. */
  shipBlob(hash: string): boolean {
    if (this.shipped.has(hash)) return false;
    this.shipped.add(hash);
    if (this.shipped.size > 100_000) this.shipped.delete(this.shipped.values().next().value!);
    return true;
  }

  /** Journals the event synchronously (it survives a SIGKILL from here on), then queues it. */
  push(e: RecordEvent): void {
    this.journalAppend(e);
    this.enqueue(e);
  }

  private journalAppend(e: RecordEvent): void {
    try {
      this.journal.append(e);
      this.journalBroken = false;
    } catch (err) {
      this.journalBroken = true;
      // Serving goes on (the event is still queued); the count and the log say the guarantee is off.
      if (this.stats.journalErrors++ === 0)
        this.log(
          `could not write the journal (${(err as Error).message}): turns are not crash-safe until it works again`,
        );
    }
  }

  /** Journaled now (before the batch that deferred it settles), queued again a little later. */
  private defer(events: LabelEvent[]): void {
    for (const l of events) {
      this.journalAppend(l);
      this.stats.deferred++;
      const t = setTimeout(() => (this.deferred.delete(t), this.enqueue(l)), LABEL_RETRY_MS);
      this.deferred.set(t, l.createdAt);
    }
  }

  private enqueue(e: RecordEvent): void {
    if (this.mode === "memory" && this.queue.length >= this.maxQueue) this.toDisk([]);
    if (this.mode === "disk") {
      this.diskPending.push(e);
      this.scheduleDiskFlush();
      return;
    }
    this.queue.push(e);
    if (this.queue.length === 1 || this.queue.length >= this.batchSize) this.kick();
  }

  private kick() {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private scheduleDiskFlush() {
    if (this.diskFlushScheduled) return;
    this.diskFlushScheduled = true;
    setImmediate(() => {
      this.diskFlushScheduled = false;
      this.appendToDisk(this.diskPending.splice(0));
    });
  }

  private appendToDisk(events: RecordEvent[]) {
    if (!events.length) return;
    this.diskWrites++;
    this.stats.spilled += events.length;
    void this.disk
      .append(events)
      // Only what the buffer kept settles: a dropped event stays in the journal and is replayed at the next start.
      .then((kept) => this.journal.settle(kept))
      .catch((err: Error) => this.log(`could not write the buffer: ${err.message}`))
      .finally(() => {
        this.diskWrites--;
        this.notifyIdle();
      });
  }

  /** Switches to disk mode; `first` (a failed batch) goes before everything still queued. */
  private toDisk(first: RecordEvent[]) {
    if (this.mode !== "disk") this.log(`Postgres unavailable or behind: buffering to ${this.disk.dir}`);
    this.mode = "disk";
    const events = [...first, ...this.queue, ...this.diskPending.splice(0)];
    this.queue = [];
    this.appendToDisk(events);
  }

  private async run(): Promise<void> {
    while (this.running) {
      if (this.mode === "memory") {
        if (!this.queue.length) {
          this.notifyIdle();
          await new Promise<void>((r) => (this.wake = r));
          continue;
        }
        if (this.queue.length < this.batchSize && this.lingerMs > 0 && !this.draining) await this.sleep(this.lingerMs);
        const batch = this.queue.splice(0, this.batchSize);
        this.inFlight = batch.length;
        try {
          await this.write(batch);
          this.journal.settle(batch);
        } catch (err) {
          this.noteDbError(err);
          this.toDisk(batch);
        } finally {
          this.inFlight = 0;
        }
      } else {
        await this.replay();
      }
    }
  }

  private noteDbError(err: unknown) {
    this.stats.dbErrors++;
    this.lastError = (err as Error)?.message ?? String(err);
    this.sessions.clear(); // the outcome of the failed batch is unknown: re-read indices next time
  }

  private async probe(): Promise<boolean> {
    try {
      await this.pool.query("SELECT 1");
      return true;
    } catch {
      return false;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => {
      const t = setTimeout(r, ms);
      this.wake = () => (clearTimeout(t), r());
    });
  }

  /** Disk mode: wait for Postgres, write segments oldest first, and go back to memory once caught up. */
  private async replay(): Promise<void> {
    if (!(await this.probe())) {
      await this.sleep(this.probeMs);
      return;
    }
    this.appendToDisk(this.diskPending.splice(0));
    await this.disk.rotate();
    try {
      for (let seg = this.disk.oldest(); seg && this.running; seg = this.disk.oldest()) {
        const { events, skipped } = await this.disk.read(seg.file);
        if (skipped) this.log(`${skipped} unreadable line(s) in ${path.basename(seg.file)} (torn write) skipped`);
        for (let i = 0; i < events.length; i += this.batchSize) {
          const batch = events.slice(i, i + this.batchSize);
          this.inFlight = batch.length;
          await this.write(batch);
          this.inFlight = 0;
        }
        this.stats.replayed += events.length;
        await this.disk.remove(seg.file);
      }
    } catch (err) {
      this.inFlight = 0;
      this.noteDbError(err);
      await this.sleep(this.probeMs);
      return;
    }
    if (!this.diskPending.length && !this.diskFlushScheduled && this.diskWrites === 0 && this.disk.empty) {
      this.mode = "memory";
      this.log("Postgres is back: buffer replayed");
    }
  }

  /** Writes a batch; data errors are isolated to single events, which are set aside in rejected.jsonl. */
  private async write(events: RecordEvent[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.transaction(events);
        return;
      } catch (err) {
        if (isConnectionError(err)) throw err;
        if ((isIndexConflict(err) || isTransient(err)) && attempt < 3) {
          this.sessions.clear();
          // An index the shared order gave is taken (Redis lost its state, or a turn recorded while it was
          // down took it): append instead, so the turn is kept.
          if (isIndexConflict(err) && attempt >= 1) this.reindex = true;
          continue;
        }
        if (events.length > 1) {
          for (const e of events) await this.write([e]);
          return;
        }
        await this.reject(events[0]!, err);
        return;
      }
    }
  }

  private async reject(e: RecordEvent, err: unknown): Promise<void> {
    this.stats.rejected++;
    const reason = (err as Error)?.message ?? String(err);
    this.log(`Postgres refused a ${e.t} event (${reason}); kept in rejected.jsonl`);
    await appendFile(path.join(this.disk.dir, "rejected.jsonl"), `${JSON.stringify({ reason, event: e })}\n`).catch(
      () => {},
    );
    if (e.t === "turn") {
      // Later turns may reference its blobs: store them on their own.
      if (e.blobs.length) {
        const c = await this.pool.connect();
        await insertBlobs(c, e.blobs).catch(() => {});
        c.release();
      }
      this.opts.onTurnRejected?.(e);
    }
  }

  /** One batch in one transaction (apply.ts); once it committed, the writer remembers what it changed. */
  private async transaction(events: RecordEvent[]): Promise<void> {
    const client = await this.pool.connect();
    let broken: unknown;
    try {
      const done = await applyBatch(client, events, { sessions: this.sessions, reindex: this.reindex });
      this.reindex = false;
      this.defer(done.deferred);
      this.stats.deferred += done.held;
      for (const [k, v] of done.staged) this.sessions.set(k, v);
      if (this.sessions.size > 50_000)
        for (const k of [...this.sessions.keys()].slice(0, 10_000)) this.sessions.delete(k);
      if (done.skippedLabels)
        this.log(`${done.skippedLabels} feedback label(s) refer to turns that do not exist: skipped`);
      this.stats.reindexed += done.reindexed;
      this.stats.turns += done.turns;
      this.stats.labels += done.labels;
      this.stats.batches++;
      if (done.judge.length) this.opts.onJudge(done.judge);
    } catch (err) {
      broken = isConnectionError(err) ? err : undefined;
      throw err;
    } finally {
      client.release(broken as Error | undefined);
    }
  }

  /** Deferred events young enough that their turn is surely on its way (older ones do not hold up a drain). */
  private get waiting(): boolean {
    const now = Date.now();
    for (const since of this.deferred.values()) if (now - since < DRAIN_WAITS_FOR_MS) return true;
    return false;
  }

  private notifyIdle() {
    if (this.depth > 0 || this.diskWrites > 0 || this.waiting) return;
    const waiters = this.idleWaiters.splice(0);
    for (const w of waiters) w();
  }

  /** Resolves once everything pushed so far is in Postgres, labels waiting for another replica's turn included (or rejects after `timeoutMs`). */
  drain(timeoutMs = 30_000): Promise<void> {
    if (this.depth === 0 && this.diskWrites === 0 && !this.waiting && this.mode === "memory") return Promise.resolve();
    this.draining++;
    return new Promise<void>((resolve, reject) => {
      const t = setTimeout(
        () => reject(new Error(`recorder did not drain within ${timeoutMs} ms (depth ${this.depth})`)),
        timeoutMs,
      );
      this.idleWaiters.push(() => (clearTimeout(t), resolve()));
      this.kick();
    }).finally(() => this.draining--);
  }

  /** For the judge sweeper and metric points: a query on the writer's own pool. */
  query<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(sql, params);
  }

  /** Writes what it can within `graceMs`; the rest stays on disk for the next start. */
  async close(graceMs = 5000): Promise<void> {
    if (this.mode === "memory" && this.depth > 0) await this.drain(graceMs).catch(() => {});
    this.running = false;
    // Waiting labels are journaled: the next start replays them.
    for (const t of this.deferred.keys()) clearTimeout(t);
    this.deferred.clear();
    this.kick();
    await this.loop?.catch(() => {});
    if (this.queue.length || this.diskPending.length) this.toDisk([]);
    await this.disk.idle();
    await this.disk.close();
    await this.journal.close();
    if (this.syncTimer) clearInterval(this.syncTimer);
    await this.pool.end().catch(() => {});
  }
}
