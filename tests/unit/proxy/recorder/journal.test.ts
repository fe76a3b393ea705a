// The write-ahead journal's group fsync: one fdatasync per open file covers every line appended before the
// pass (not one per line), files rotated meanwhile are synced before their fd closes, the armed interval
// runs a pass by itself, and a failed fsync counts the lines it left undurable (`lossy`) and reports the
// journal failing until a pass succeeds again.
import fs from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { Journal } from "../../../../server/proxy/recorder/journal";
import { LabelEventSchema, type LabelEvent } from "../../../../server/proxy/recorder/events";

const realFdatasync = promisify(fs.fdatasync);
let n = 0;
const label = (comment = "ok"): LabelEvent =>
  LabelEventSchema.parse({
    t: "label",
    id: `label-${++n}`,
    turnId: `turn-${n}`,
    value: 1,
    comment,
    apiKeyId: null,
    createdAt: 1000 + n,
  });

const dirs: string[] = [];
async function tempDir() {
  const d = await mkdtemp(path.join(os.tmpdir(), "journal-"));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** A real fdatasync that counts its calls. */
function counting() {
  const calls: number[] = [];
  return { calls, fdatasync: (fd: number) => (calls.push(fd), realFdatasync(fd)) };
}

describe("journal group fsync", () => {
  it("covers every line appended before a pass with one fdatasync per open file", async () => {
    const dir = await tempDir();
    const sync = counting();
    // An interval that never fires within the test: the pass is driven by hand.
    const j = new Journal(dir, { fsyncMs: 3_600_000, fdatasync: sync.fdatasync });
    for (let i = 0; i < 200; i++) j.append(label());
    await j.sync();
    expect(sync.calls).toHaveLength(1);
    expect(j.stats).toEqual({ fsyncs: 1, lossy: 0 });
    // Nothing new: the next pass syncs nothing.
    await j.sync();
    expect(sync.calls).toHaveLength(1);
    await j.close();
  });

  it("runs the pass by itself once the interval after the first unsynced line ends", async () => {
    const dir = await tempDir();
    const sync = counting();
    const j = new Journal(dir, { fsyncMs: 5, fdatasync: sync.fdatasync });
    j.append(label());
    j.append(label());
    while (j.stats.fsyncs === 0) await new Promise((r) => setTimeout(r, 5));
    expect(sync.calls).toHaveLength(1);
    await j.close();
  });

  it("syncs a file rotated away before closing it, and keeps its unsettled lines for replay", async () => {
    const dir = await tempDir();
    const sync = counting();
    const j = new Journal(dir, { fsyncMs: 3_600_000, fdatasync: sync.fdatasync });
    const big = "x".repeat(64 * 1024);
    // Past the 4 MiB rotation size: a second file is started while the first still waits for its fsync.
    for (let i = 0; i < 70; i++) j.append(label(big));
    expect((await readdir(dir)).filter((f) => f.startsWith("proxy-journal-"))).toHaveLength(2);
    await j.sync();
    expect(new Set(sync.calls).size).toBe(2);
    expect(j.stats.fsyncs).toBe(1);
    await j.close();
    const files = (await readdir(dir)).filter((f) => f.startsWith("proxy-journal-"));
    const lines = (await Promise.all(files.map((f) => readFile(path.join(dir, f), "utf8"))))
      .join("")
      .split("\n")
      .filter(Boolean);
    expect(lines).toHaveLength(70);
  });

  it("counts the lines a failed fsync left undurable and reports failing until a pass succeeds", async () => {
    const dir = await tempDir();
    let fail = true;
    const errors: number[] = [];
    const j = new Journal(dir, {
      fsyncMs: 3_600_000,
      fdatasync: (fd) =>
        fail
          ? Promise.reject(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" }))
          : realFdatasync(fd),
      onSyncError: (_err, lines) => errors.push(lines),
    });
    for (let i = 0; i < 3; i++) j.append(label());
    await j.sync();
    expect(j.stats.lossy).toBe(3);
    expect(j.syncFailing).toBe(true);
    expect(errors).toEqual([3]);
    fail = false;
    j.append(label());
    await j.sync();
    expect(j.stats.lossy).toBe(3);
    expect(j.syncFailing).toBe(false);
    await j.close();
  });

  it("deletes settled files without syncing them", async () => {
    const dir = await tempDir();
    const sync = counting();
    const j = new Journal(dir, { fsyncMs: 3_600_000, fdatasync: sync.fdatasync });
    const events = [label(), label()];
    for (const e of events) j.append(e);
    j.settle(events);
    await j.close();
    expect(sync.calls).toHaveLength(0);
    expect((await readdir(dir)).filter((f) => f.startsWith("proxy-journal-"))).toHaveLength(0);
  });
});
