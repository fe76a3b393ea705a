// Hands ready turns to the judge queue. Enqueueing never blocks recording: it runs after the batch
// committed, with a timeout (ioredis would otherwise hold commands until Redis returns). Turns whose
// enqueue failed are retried, and a sweeper finds ready-but-unjudged turns in Postgres — after a Redis
// outage, or at start for whatever a crashed process had not queued. Job ids are turn ids, so queueing
// a turn twice is a no-op while its job exists.
import { enqueue as busEnqueue, enqueueMany } from "../platform/bus/queues";
import { READY_TO_JUDGE } from "../recording/readiness";
import type { JudgeItem } from "./recorder/sql";

export type EnqueueFn = (item: JudgeItem) => Promise<void>;
export type EnqueueManyFn = (items: JudgeItem[]) => Promise<void>;
export type SweepQuery = (sinceDays: number, limit: number) => Promise<JudgeItem[]>;

export const defaultEnqueue: EnqueueFn = (item) =>
  busEnqueue("judgeTurn", { turnId: item.turnId, experimentId: item.experimentId }, item.turnId);

/** One round trip for a committed batch's turns; the sweeper and single retries use `defaultEnqueue`. */
export const defaultEnqueueMany: EnqueueManyFn = (items) =>
  enqueueMany(
    "judgeTurn",
    items.map((i) => ({ payload: { turnId: i.turnId, experimentId: i.experimentId }, jobId: i.turnId })),
  );

/** Main, successful turns with a next state (or whose session ended) and no judgment yet. */
export const SWEEP_SQL = `
  SELECT t.id AS "turnId", t."experimentId" FROM turns t JOIN agent_sessions s ON s.id = t."sessionId"
  WHERE ${READY_TO_JUDGE}
    AND t."createdAt" > (now() AT TIME ZONE 'UTC') - make_interval(days => $1::int)
    AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j."turnId" = t.id)
  ORDER BY t."createdAt" LIMIT $2`;

export class JudgeEnqueuer {
  private readonly pending = new Map<string, JudgeItem>();
  private readonly inFlight = new Set<string>();
  private needsSweep = true;
  private timer: NodeJS.Timeout | null = null;
  private lastSweep = 0;
  readonly stats = { enqueued: 0, failed: 0, swept: 0 };

  constructor(
    private readonly opts: {
      enqueue?: EnqueueFn;
      /** Batch path for fresh turns (production); without it each item goes through `enqueue`. */
      enqueueMany?: EnqueueManyFn;
      sweepQuery: SweepQuery;
      timeoutMs?: number;
      retryMs?: number;
      /** Minimum time between two sweeps. */
      sweepEveryMs?: number;
      log?: (m: string) => void;
    },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.opts.retryMs ?? 2000);
    this.timer.unref();
    void this.tick();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  get backlog(): number {
    return this.pending.size;
  }

  submit(items: readonly JudgeItem[]): void {
    const many = this.opts.enqueueMany;
    if (!many || items.length < 2) {
      for (const item of items) void this.one(item);
      return;
    }
    const fresh = items.filter((i) => !this.inFlight.has(i.turnId));
    for (const i of fresh) this.inFlight.add(i.turnId);
    let timer: NodeJS.Timeout | undefined;
    const call = many(fresh);
    void Promise.race([
      call,
      new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new Error("enqueue timed out")), this.opts.timeoutMs ?? 2000)),
      ),
    ])
      .then(
        () => {
          this.stats.enqueued += fresh.length;
          for (const i of fresh) this.inFlight.delete(i.turnId);
        },
        () => {
          // Retried one by one (and swept) like any failed enqueue, once the bulk call has settled.
          this.stats.failed += fresh.length;
          this.needsSweep = true;
          const release = () => {
            for (const i of fresh) {
              this.inFlight.delete(i.turnId);
              this.pending.set(i.turnId, i);
            }
          };
          void call.then(release, release);
        },
      )
      .finally(() => clearTimeout(timer));
  }

  private async one(item: JudgeItem): Promise<boolean> {
    if (this.inFlight.has(item.turnId)) return false;
    this.inFlight.add(item.turnId);
    const enqueue = this.opts.enqueue ?? defaultEnqueue;
    const timeoutMs = this.opts.timeoutMs ?? 2000;
    let timer: NodeJS.Timeout | undefined;
    const call = enqueue(item);
    try {
      await Promise.race([
        call,
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("enqueue timed out")), timeoutMs))),
      ]);
      this.pending.delete(item.turnId);
      this.stats.enqueued++;
      this.inFlight.delete(item.turnId);
      return true;
    } catch {
      this.stats.failed++;
      this.pending.set(item.turnId, item);
      this.needsSweep = true;
      // A timed-out call may still complete once Redis is back; until it settles, do not pile up another.
      void call.then(
        () => (this.pending.delete(item.turnId), this.inFlight.delete(item.turnId)),
        () => this.inFlight.delete(item.turnId),
      );
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  private async tick(): Promise<void> {
    for (const item of [...this.pending.values()]) if (!(await this.one(item))) return;
    const every = this.opts.sweepEveryMs ?? 30_000;
    if (this.needsSweep && Date.now() - this.lastSweep >= every) await this.sweep();
  }

  /** Queues every ready turn that has no judgment; returns how many it queued. */
  async sweep(): Promise<number> {
    this.lastSweep = Date.now();
    let items: JudgeItem[];
    try {
      items = await this.opts.sweepQuery(7, 1000);
    } catch {
      return 0; // Postgres down: the next tick tries again
    }
    let queued = 0;
    for (const item of items) {
      if (!(await this.one(item))) return queued; // Redis still down: keep needsSweep
      queued++;
    }
    this.stats.swept += queued;
    this.needsSweep = items.length === 1000;
    if (queued) this.opts.log?.(`sweeper queued ${queued} ready turn(s) for the judge`);
    return queued;
  }
}
