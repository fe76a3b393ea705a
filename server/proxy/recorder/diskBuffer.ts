// The durable overflow of the recording writer: while Postgres is unreachable (or slower than traffic),
// events are appended as JSON lines to numbered segment files under DATA_DIR, and replayed oldest first
// when it is back. Bounded by bytes; a torn last line (crash mid-write) is skipped on replay.
import { promises as fs } from "node:fs";
import path from "node:path";
import { RecordEventSchema, type RecordEvent } from "./events";

const SEGMENT = /^seg-(\d{10})\.jsonl$/;
const ROTATE_BYTES = 8 * 1024 * 1024;

interface Segment {
  file: string;
  events: number;
  bytes: number;
}

export class DiskBuffer {
  private closed: Segment[] = [];
  private active: (Segment & { fh: fs.FileHandle }) | null = null;
  private nextSeq = 0;
  private dirty = false;
  /** Disk operations run one after another through this chain. */
  private chain: Promise<unknown> = Promise.resolve();
  dropped = 0;
  private overflowed = false;

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {}

  /** Adopts segments left by an earlier process (they are replayed first). */
  async open(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const names = (await fs.readdir(this.dir)).filter((n) => SEGMENT.test(n)).sort();
    for (const name of names) {
      const file = path.join(this.dir, name);
      const text = await fs.readFile(file, "utf8");
      const events = text.split("\n").filter((l) => l.trim()).length;
      if (events === 0) {
        await fs.rm(file, { force: true });
        continue;
      }
      this.closed.push({ file, events, bytes: Buffer.byteLength(text) });
      this.nextSeq = Math.max(this.nextSeq, Number(SEGMENT.exec(name)![1]) + 1);
    }
  }

  get depth(): number {
    return this.closed.reduce((n, s) => n + s.events, 0) + (this.active?.events ?? 0);
  }

  get bytes(): number {
    return this.closed.reduce((n, s) => n + s.bytes, 0) + (this.active?.bytes ?? 0);
  }

  /** At the bound, or an event did not fit since the last segment was replayed (the proxy refuses requests). */
  get full(): boolean {
    return this.overflowed || this.bytes >= this.maxBytes;
  }

  get empty(): boolean {
    return this.depth === 0;
  }

  private run<T>(op: () => Promise<T>): Promise<T> {
    const p = this.chain.then(op);
    this.chain = p.catch(() => {});
    return p;
  }

  /**
   * Appends in order; events past the byte bound are dropped (and counted). Resolves once written, with the
   * events it kept: only those may be settled in the journal (the others are replayed from it at the next start).
   */
  append(events: readonly RecordEvent[]): Promise<RecordEvent[]> {
    return this.run(async () => {
      let text = "";
      let size = 0;
      let count = 0;
      const kept: RecordEvent[] = [];
      const room = this.maxBytes - this.bytes;
      for (const e of events) {
        const line = `${JSON.stringify(e)}\n`;
        const n = Buffer.byteLength(line);
        if (size + n > room) {
          this.dropped++;
          this.overflowed = true;
          continue;
        }
        text += line;
        size += n;
        count++;
        kept.push(e);
      }
      if (!count) return kept;
      if (!this.active) {
        const file = path.join(this.dir, `seg-${String(this.nextSeq++).padStart(10, "0")}.jsonl`);
        this.active = { file, events: 0, bytes: 0, fh: await fs.open(file, "a") };
      }
      await this.active.fh.write(text);
      this.active.events += count;
      this.active.bytes += size;
      this.dirty = true;
      if (this.active.bytes >= ROTATE_BYTES) await this.closeActive();
      return kept;
    });
  }

  private async closeActive(): Promise<void> {
    if (!this.active) return;
    const { fh, ...seg } = this.active;
    this.active = null;
    await fh.sync();
    await fh.close();
    this.dirty = false;
    this.closed.push(seg);
  }

  /** Makes everything appended so far replayable (closes the active segment). */
  rotate(): Promise<void> {
    return this.run(() => this.closeActive());
  }

  /** fsync of the active segment (called periodically, not per append). */
  sync(): Promise<void> {
    return this.run(async () => {
      if (this.active && this.dirty) {
        await this.active.fh.sync();
        this.dirty = false;
      }
    });
  }

  oldest(): { file: string; events: number } | null {
    return this.closed[0] ?? null;
  }

  /** Events of a closed segment; unparsable lines (a torn write) are skipped and reported. */
  read(file: string): Promise<{ events: RecordEvent[]; skipped: number }> {
    return readEvents(file);
  }

  remove(file: string): Promise<void> {
    return this.run(async () => {
      await fs.rm(file, { force: true });
      this.closed = this.closed.filter((s) => s.file !== file);
      this.overflowed = false;
    });
  }

  /** Waits for queued disk operations (tests and shutdown). */
  idle(): Promise<void> {
    return this.run(async () => {});
  }

  close(): Promise<void> {
    return this.run(() => this.closeActive());
  }
}

/** The events of a JSON-lines file (a segment or a journal); unparsable lines (a torn write) are skipped and counted. */
export async function readEvents(file: string): Promise<{ events: RecordEvent[]; skipped: number }> {
  const text = await fs.readFile(file, "utf8");
  const events: RecordEvent[] = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      events.push(RecordEventSchema.parse(JSON.parse(line)));
    } catch {
      skipped++;
    }
  }
  return { events, skipped };
}
