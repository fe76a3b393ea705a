// The trainer worker as a process: `tsx workers/train/main.ts` starts the PENDING run, trains, is
// SIGKILLed while it trains, and a new process resumes from the last committed version: every step
// number and version appears exactly once, every sample trained exactly once, the Adam state carried on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { db } from "../../../server/platform/db/client";
import { readCheckpointMeta } from "../../../server/engine/checkpoint";
import type { EmbeddedUpstream } from "../../../server/proxy/upstreams/embedded";
import { experimentCheckpointDir } from "../../../server/training/checkpoints";
import { WORKERS, workerCommand } from "../../../workers/registry";
import { makeJudgment } from "../../helpers/judgments";
import { serveTurn, upstreamFor } from "./helpers";
import { makeBaseCheckpoint } from "../../../bench/lib/baseCheckpoint";
import { exited } from "../../../bench/lib/cluster";
import { isolateDataDir, isolateRedis } from "../../helpers/isolate";
import { makeExperiment, makeRun } from "../../helpers/fixtures";
import { waitFor } from "../../helpers/waitFor";

isolateRedis("train-resume");
const root = path.resolve(import.meta.dirname, "../../..");
let dataDir = "";
let base = "";
let upstream: EmbeddedUpstream;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dataDir = await isolateDataDir("resume");
  base = await makeBaseCheckpoint(dataDir, 9);
  upstream = upstreamFor(base, 0);
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await upstream.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** A trainer process for this experiment only; `lines` collects its output. */
function startWorker(experimentId: string): { child: ChildProcess; lines: string[] } {
  // As the product runs it (one node process with the tsx loader): the tsx CLI would SIGKILL a busy worker
  // ~30 ms after relaying SIGTERM, which makes the clean-exit assertion below flaky under load.
  const { command, args } = workerCommand(
    root,
    WORKERS.find((w) => w.name === "train")!,
  );
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, TRAINER_EXPERIMENTS: experimentId, DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const lines: string[] = [];
  const take = (d: Buffer) => lines.push(...d.toString().split("\n").filter(Boolean));
  child.stdout!.on("data", take);
  child.stderr!.on("data", take);
  return { child, lines };
}

const BATCH = 4;
const STEPS = 6;

describe("resume after SIGKILL", () => {
  it("loses and repeats no step: versions stay contiguous and each sample trains once", async () => {
    const { id: exp } = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: base },
      hyper: { batchSize: BATCH, lr: 1e-3, maxStaleness: 100, keepCheckpoints: 3, ppoEpochs: 1, baseKlCoef: 0 },
    });
    const runId = (await makeRun(exp, { status: "PENDING" })).id;
    for (let i = 0; i < BATCH * STEPS; i++) {
      const { turnId } = await serveTurn(upstream, {
        experimentId: exp,
        runId,
        messages: [{ role: "user", content: `Remind me of task ${i}.` }],
        seed: 1000 + i,
      });
      await makeJudgment(turnId, { score: i % 3 === 0 ? -1 : 1 });
    }

    const first = startWorker(exp);
    // Killed the moment it announces step 2 (it is then computing, saving or committing it).
    await waitFor("step 2 to start", () => first.lines.some((l) => l.includes(": step 2 on ")), 120_000);
    first.child.kill("SIGKILL");
    await exited(first.child);
    const atKill = await db().run.findUniqueOrThrow({ where: { id: runId } });
    expect(atKill.status).toBe("RUNNING");
    expect([1, 2]).toContain(atKill.lastStep);

    const second = startWorker(exp);
    await waitFor(
      `${STEPS} steps`,
      async () => (await db().run.findUniqueOrThrow({ where: { id: runId } })).lastStep === STEPS,
      180_000,
    );
    second.child.kill("SIGTERM");
    await exited(second.child);
    expect(second.child.exitCode).toBe(0);

    const steps = await db().trainingStep.findMany({
      where: { runId },
      orderBy: { step: "asc" },
      include: { samples: true },
    });
    expect(steps.map((s) => [s.step, s.policyVersion])).toEqual(
      Array.from({ length: STEPS }, (_, i) => [i + 1, i + 1]),
    );
    expect(steps.every((s) => s.samples.length === BATCH)).toBe(true);
    const samples = await db().sample.findMany({ where: { runId } });
    expect(samples).toHaveLength(BATCH * STEPS);
    expect(samples.every((s) => s.stepId !== null)).toBe(true);

    const versions = await db().policyVersion.findMany({ where: { experimentId: exp }, orderBy: { version: "asc" } });
    expect(versions.map((v) => [v.version, v.parentVersion, v.step, v.status])).toEqual(
      Array.from({ length: STEPS }, (_, i) => [i + 1, i, i + 1, i + 1 === STEPS ? "ACTIVE" : "RETIRED"]),
    );
    // Adam continued across the restart: one optimizer update per committed step, none lost or repeated.
    const last = versions[STEPS - 1];
    expect((await readCheckpointMeta(last.checkpointPath!)).optimizer?.step).toBe(STEPS);
    // Exactly the last K checkpoints remain; a killed attempt's files are gone.
    const kept = versions.filter((v) => v.checkpointPath !== null);
    expect(kept.map((v) => v.version)).toEqual([4, 5, 6]);
    expect((await fs.readdir(experimentCheckpointDir(exp, dataDir))).sort()).toEqual(
      kept.map((v) => path.basename(v.checkpointPath!)).sort(),
    );
    expect(kept.every((v) => existsSync(path.join(v.checkpointPath!, "weights.bin")))).toBe(true);
  }, 400_000);
});
