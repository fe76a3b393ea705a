// The write-ahead journal: every event the writer is handed is first appended, synchronously, to a per-process
// JSON-lines file, before the request's last bytes go out. The write puts the line in the kernel's page cache,
// which survives a SIGKILL of the process at once. A power loss or kernel crash keeps only what was fsynced, so
// appends are fsynced in groups (group commit): the first unsynced append arms a timer, and when it fires one
// fdatasync per open file covers every line written since (PROXY_JOURNAL_FSYNC_MS; 0 turns it off). A power
// loss then loses at most the turns acknowledged in the last interval, and the cost is one fsync per interval,
// not one per turn; the fsync runs on libuv's thread pool, off the event loop. A new file's directory entry is
// made durable in the same pass. Once an event is committed to Postgres or written to the disk buffer it is
// "settled"; a file whose events have all settled is deleted (the current one once it has grown past
// COMPACT_BYTES, so compaction costs an unlink per ~64 KiB, not a syscall per batch). Files of processes that
// are gone are handed back by `leftoverJournals` for replay through the disk buffer.
import fs from "node:fs";
import { open, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { randomBytes } from "node:crypto";
import type { RecordEvent } from "./events";

const NAME = /^proxy-journal-(\d+)-([0-9a-f]+)-(\d{6})\.jsonl$/;
/** A new file is started past this size even while the current one still has unsettled events. */
const ROTATE_BYTES = 4 * 1024 * 1024;
/** The current file is deleted once all its events have settled and it is at least this big. */
const COMPACT_BYTES = 64 * 1024;

/** Journal instances alive in this process: their files (same pid) are not leftovers. */
const liveInstances = new Set<string>();

interface JournalFile {
  file: string;
  fd: number | null;
  bytes: number;
  pending: number;
  /** Lines appended, and lines a completed fdatasync covers. */
  lines: number;
  syncedLines: number;
  /** fdatasyncs in flight on `fd` (it is closed only when none is: a closed fd number can be reused). */
  syncing: number;
  /** Takes no more appends; its fd is closed once nothing waits to be synced on it. */
  retired: boolean;
}

export interface JournalOptions {
  /** Longest time an appended line waits for its fsync (PROXY_JOURNAL_FSYNC_MS); 0: never fsync. */
  fsyncMs: number;
  /** The fsync of one file (fdatasync); replaceable so a test can make it fail the way a dying disk does. */
  fdatasync?: (fd: number) => Promise<void>;
  /** An fsync failed: `lines` acknowledged events may not survive a power loss. */
  onSyncError?: (err: Error, lines: number) => void;
}

export class Journal {
  private readonly instance = randomBytes(4).toString("hex");
  private seq = 0;
  private current: JournalFile | null = null;
  /** Files with unsettled events (kept on disk for replay). */
  private readonly files = new Set<JournalFile>();
  /** Files whose fd is open (the current one, and retired ones waiting for their fsync). */
  private readonly open = new Set<JournalFile>();
  /** Which file holds an event (events are the writer's objects; replayed copies are never journaled). */
  private readonly where = new WeakMap<RecordEvent, JournalFile>();
  private readonly fdatasync: (fd: number) => Promise<void>;
  private timer: NodeJS.Timeout | null = null;
  private syncing: Promise<void> | null = null;
  /** A file was created since the last pass: its directory entry must be fsynced too. */
  private dirDirty = false;
  /** fsync passes that ran, and acknowledged lines an fsync failure left without a durable copy. */
  readonly stats = { fsyncs: 0, lossy: 0 };
  /** The last fsync failed: lines appended now may not survive a power loss (cleared by the next good pass). */
  syncFailing = false;

  constructor(
    readonly dir: string,
    private readonly opts: JournalOptions = { fsyncMs: 0 },
  ) {
    liveInstances.add(this.instance);
    const fdatasync = promisify(fs.fdatasync);
    this.fdatasync = opts.fdatasync ?? ((fd) => fdatasync(fd));
  }

  /** Unsettled events across this process's files. */
  get pending(): number {
    let n = 0;
    for (const f of this.files) n += f.pending;
    return n;
  }

  /** Appends one event synchronously (throws on an I/O error: the caller decides what that means). */
  append(e: RecordEvent): void {
    if (!this.current || this.current.bytes >= ROTATE_BYTES) this.startFile();
    const f = this.current!;
    const line = `${JSON.stringify(e)}\n`;
    fs.writeSync(f.fd!, line);
    f.bytes += Buffer.byteLength(line);
    f.lines++;
    f.pending++;
    this.where.set(e, f);
    this.armSync();
  }

  private startFile() {
    if (this.current) this.retire(this.current);
    fs.mkdirSync(this.dir, { recursive: true });
    const file = path.join(
      this.dir,
      `proxy-journal-${process.pid}-${this.instance}-${String(this.seq++).padStart(6, "0")}.jsonl`,
    );
    this.current = {
      file,
      fd: fs.openSync(file, "a"),
      bytes: 0,
      pending: 0,
      lines: 0,
      syncedLines: 0,
      syncing: 0,
      retired: false,
    };
    this.files.add(this.current);
    this.open.add(this.current);
    this.dirDirty = true;
  }

  /** The first unsynced line starts the interval; everything appended before it ends shares one fsync. */
  private armSync() {
    if (this.opts.fsyncMs <= 0 || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.sync();
    }, this.opts.fsyncMs);
    this.timer.unref(); // close() runs the last pass itself
  }

  /** One group fsync of every line appended so far (waits for a pass in flight first). */
  sync(): Promise<void> {
    const run = (this.syncing ?? Promise.resolve()).then(() => this.syncPass());
    const p = run.finally(() => {
      if (this.syncing === p) this.syncing = null;
    });
    this.syncing = p;
    return p;
  }

  private async syncPass(): Promise<void> {
    // After a failure every open file is synced again, new lines or not: with appends refused meanwhile
    // (fail-closed), that retry is what tells the proxy the disk is back.
    const todo = [...this.open].filter((f) => f.fd !== null && (f.lines > f.syncedLines || this.syncFailing));
    const dir = this.dirDirty;
    this.dirDirty = false;
    if (!todo.length && !dir) {
      this.syncFailing = false;
      return;
    }
    this.stats.fsyncs++;
    let failed = false;
    await Promise.all(
      todo.map(async (f) => {
        const upTo = f.lines;
        f.syncing++;
        try {
          await this.fdatasync(f.fd!);
        } catch (err) {
          failed = true;
          // Linux may drop the dirty pages after a failed fsync: these lines are acknowledged and not durable
          // (none, if every event in the file settled meanwhile and it was deleted).
          const lost = Math.max(0, upTo - f.syncedLines);
          this.stats.lossy += lost;
          this.opts.onSyncError?.(err as Error, lost);
        } finally {
          f.syncedLines = Math.max(f.syncedLines, upTo);
          f.syncing--;
          this.closeIfDone(f);
        }
      }),
    );
    if (dir) {
      try {
        const h = await open(this.dir, "r");
        await h.sync().finally(() => h.close());
      } catch (err) {
        failed = true;
        this.dirDirty = true; // the next pass tries the directory again
        this.opts.onSyncError?.(err as Error, 0);
      }
    }
    this.syncFailing = failed;
    if (failed) this.armSync(); // retried after an interval even if nothing more is appended
  }

  /** Stops appends to a file; deletes it if nothing in it is unsettled; closes its fd once no fsync needs it. */
  private retire(f: JournalFile) {
    if (f === this.current) this.current = null;
    f.retired = true;
    if (f.pending === 0) {
      fs.rmSync(f.file, { force: true });
      this.files.delete(f);
      f.syncedLines = f.lines; // nothing in it is needed any more
    }
    this.closeIfDone(f);
  }

  private closeIfDone(f: JournalFile) {
    if (!f.retired || f.fd === null || f.syncing > 0) return;
    if (this.opts.fsyncMs > 0 && f.lines > f.syncedLines) return; // the armed pass syncs it, then closes it
    fs.closeSync(f.fd);
    f.fd = null;
    this.open.delete(f);
  }

  /** These events are in Postgres or in the disk buffer: the journal no longer needs them. */
  settle(events: readonly RecordEvent[]): void {
    for (const e of events) {
      const f = this.where.get(e);
      if (!f) continue;
      this.where.delete(e);
      f.pending--;
      if (f.pending === 0 && (f !== this.current || f.bytes >= COMPACT_BYTES)) this.retire(f);
    }
  }

  /** Fsyncs what is unsettled, then deletes the files if everything settled; otherwise leaves them for the next start. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const f of [...this.files]) this.retire(f);
    if (this.opts.fsyncMs > 0) await this.sync();
    if (this.timer) clearTimeout(this.timer); // a failed last pass re-armed it: nothing is left to retry on
    this.timer = null;
    for (const f of [...this.open]) {
      f.syncedLines = f.lines;
      this.closeIfDone(f);
    }
    liveInstances.delete(this.instance);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Journal files in `dir` whose writer is gone — another pid that is not running, or this pid but not a
 * journal open in this process (a restart that reused the pid) — in replay order: per writer by sequence,
 * writers by their oldest file's modification time.
 */
export async function leftoverJournals(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const groups = new Map<string, { files: { name: string; seq: number }[]; oldest: number }>();
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    const instance = m[2]!;
    const gone = pid === process.pid ? !liveInstances.has(instance) : !processAlive(pid);
    if (!gone) continue;
    const mtime = (await stat(path.join(dir, name)).catch(() => null))?.mtimeMs;
    if (mtime === undefined) continue; // removed meanwhile
    const g = groups.get(`${pid}-${instance}`) ?? { files: [], oldest: Infinity };
    g.files.push({ name, seq: Number(m[3]) });
    g.oldest = Math.min(g.oldest, mtime);
    groups.set(`${pid}-${instance}`, g);
  }
  return [...groups.values()]
    .sort((a, b) => a.oldest - b.oldest)
    .flatMap((g) => g.files.sort((a, b) => a.seq - b.seq).map((f) => path.join(dir, f.name)));
}
