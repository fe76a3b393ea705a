// The run lifecycle (server/runs/lifecycle.ts): heartbeat-based crash detection of embedded runs, as a
// function and as the train worker runs it. A run whose train worker died keeps RUNNING with a stale
// `heartbeatAt` until a sweep marks it CRASHED; a run with a fresh heartbeat stays RUNNING.
import { afterAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { db } from "../../../server/platform/db/client";
import { crashStaleRuns, endRun, markExternalRunning } from "../../../server/runs/lifecycle";
import { WORKERS, workerCommand } from "../../../workers/registry";
import { exited } from "../../../bench/lib/cluster";
import { isolateDataDir, isolateRedis } from "../../helpers/isolate";
import { makeExperiment, makeRun } from "../../helpers/fixtures";
import { waitFor } from "../../helpers/waitFor";

isolateRedis("run-lifecycle");
const root = path.resolve(import.meta.dirname, "../../..");
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

const HOUR = 3600_000;

/** An embedded RUNNING run whose train worker last beat `agoMs` ago. */
async function runningEmbedded(agoMs: number, now = new Date()) {
  const { id: exp } = await makeExperiment({ policy: { kind: "embedded", checkpoint: "/nonexistent/base" } });
  const run = await makeRun(exp, { status: "RUNNING", trainerBackend: "embedded" });
  const heartbeatAt = new Date(now.getTime() - agoMs);
  await db().run.update({ where: { id: run.id }, data: { heartbeatAt } });
  return { exp, id: run.id, heartbeatAt };
}

const status = async (id: string) => (await db().run.findUniqueOrThrow({ where: { id } })).status;

describe("crashStaleRuns", () => {
  it("crashes a started run whose heartbeat is older than the staleness, and leaves a fresh one running", async () => {
    const now = new Date();
    const stale = await runningEmbedded(2 * HOUR, now);
    const fresh = await runningEmbedded(1000, now);
    const crashed = await crashStaleRuns(
      { experimentId: { in: [stale.exp, fresh.exp] } },
      { now, staleMs: 10 * 60_000 },
    );
    expect(crashed).toEqual([stale.id]);
    const row = await db().run.findUniqueOrThrow({ where: { id: stale.id } });
    expect(row.status).toBe("CRASHED");
    expect(row.endedAt?.getTime()).toBe(now.getTime());
    expect(row.statusMessage).toContain("no heartbeat from its train worker");
    expect(await status(fresh.id)).toBe("RUNNING");
  });

  it("leaves pending and ended runs alone, however old their heartbeat", async () => {
    const now = new Date();
    const { id: exp } = await makeExperiment({ policy: { kind: "embedded", checkpoint: "/nonexistent/base" } });
    const pending = await makeRun(exp, { status: "PENDING", trainerBackend: "embedded" });
    const killed = await makeRun(exp, { status: "RUNNING", trainerBackend: "embedded" });
    await db().run.update({
      where: { id: killed.id },
      data: { status: "KILLED", heartbeatAt: new Date(now.getTime() - 2 * HOUR) },
    });
    expect(await crashStaleRuns({ experimentId: exp }, { now, staleMs: 60_000 })).toEqual([]);
    expect(await status(pending.id)).toBe("PENDING");
    expect(await status(killed.id)).toBe("KILLED");
  });
});

describe("transitions are guarded by the status they leave", () => {
  it("an ended run is not ended again, nor started", async () => {
    const { id: exp } = await makeExperiment();
    const run = await makeRun(exp, { status: "PENDING", trainerBackend: "local-process" });
    expect(await markExternalRunning(run.id, new Date(), "running")).toBe(true);
    expect(await markExternalRunning(run.id, new Date(), "running")).toBe(false);
    expect(await endRun(run.id, "FINISHED", "done", new Date())).toBe(true);
    expect(await endRun(run.id, "CRASHED", "late", new Date())).toBe(false);
    const row = await db().run.findUniqueOrThrow({ where: { id: run.id } });
    expect([row.status, row.statusMessage]).toEqual(["FINISHED", "done"]);
  });
});

describe("the train worker's sweep", () => {
  it("marks the run a dead worker left CRASHED and keeps a run with a fresh heartbeat RUNNING", async () => {
    const stale = await runningEmbedded(2 * HOUR);
    const fresh = await runningEmbedded(0);
    const dataDir = await isolateDataDir("lifecycle");
    dirs.push(dataDir);
    const { command, args } = workerCommand(
      root,
      WORKERS.find((w) => w.name === "train")!,
    );
    const child = spawn(command, args, {
      cwd: root,
      env: {
        ...process.env,
        TRAINER_EXPERIMENTS: `${stale.exp},${fresh.exp}`,
        TRAINER_RUN_STALE_S: "600",
        DATA_DIR: dataDir,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    const lines: string[] = [];
    const take = (d: Buffer) => lines.push(...d.toString().split("\n").filter(Boolean));
    child.stdout!.on("data", take);
    child.stderr!.on("data", take);

    await waitFor(
      "the stale run to be CRASHED",
      async () => ((await status(stale.id)) === "CRASHED" ? true : null),
      120_000,
    );
    // The sweep that crashed the stale run saw the fresh one too; then the worker beats for it.
    await waitFor("the fresh run's next heartbeat", async () => {
      const row = await db().run.findUniqueOrThrow({ where: { id: fresh.id } });
      return row.heartbeatAt!.getTime() > fresh.heartbeatAt.getTime() ? row : null;
    });
    expect(await status(fresh.id)).toBe("RUNNING");
    expect(lines.some((l) => l.includes("crashed 1 run(s) whose train worker stopped"))).toBe(true);
    child.kill("SIGTERM");
    await exited(child);
  }, 200_000);
});
