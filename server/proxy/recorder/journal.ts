// The write-ahead journal: every event the writer is handed is first appended, synchronously, to a per-process
// JSON-lines file, before the request's last bytes go out. A plain write (no fsync) puts the line in the
// kernel's page cache, which survives a SIGKILL of the process (not a power loss or kernel crash: those are
// not covered). Once an event is committed to Postgres or written to the disk buffer it is "settled"; a file
// whose events have all settled is deleted (the current one once it has grown past COMPACT_BYTES, so
// compaction costs an unlink per ~64 KiB, not a syscall per batch). Files of processes that are gone are
// handed back by `leftoverJournals` for replay through the disk buffer.
import fs from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
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
}

export class Journal {
  private readonly instance = randomBytes(4).toString("hex");
  private seq = 0;
  private current: JournalFile | null = null;
  private readonly files = new Set<JournalFile>();
  /** Which file holds an event (events are the writer's objects; replayed copies are never journaled). */
  private readonly where = new WeakMap<RecordEvent, JournalFile>();

  constructor(readonly dir: string) {
    liveInstances.add(this.instance);
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
    f.pending++;
    this.where.set(e, f);
  }

  private startFile() {
    if (this.current) this.retire(this.current);
    fs.mkdirSync(this.dir, { recursive: true });
    const file = path.join(
      this.dir,
      `proxy-journal-${process.pid}-${this.instance}-${String(this.seq++).padStart(6, "0")}.jsonl`,
    );
    this.current = { file, fd: fs.openSync(file, "a"), bytes: 0, pending: 0 };
    this.files.add(this.current);
  }

  /** Closes a file that takes no more appends; deletes it if nothing in it is unsettled. */
  private retire(f: JournalFile) {
    if (f.fd !== null) fs.closeSync(f.fd);
    f.fd = null;
    if (f === this.current) this.current = null;
    if (f.pending === 0) {
      fs.rmSync(f.file, { force: true });
      this.files.delete(f);
    }
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

  /** Deletes the files if everything settled; otherwise leaves them for the next start to replay. */
  close(): void {
    for (const f of [...this.files]) this.retire(f);
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
