// A real judge worker process (workers/judge/main.ts under tsx) killed with SIGKILL while turns are in
// flight: after a restart, BullMQ re-delivers the dead worker's jobs (its sweeper is off here, so
// nothing else could) and every enqueued turn ends with exactly one judgment and one set of votes.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { exited } from "../../../bench/lib/cluster";
import { boxed, PrmScript } from "./helpers";
import { deleteExperiments, makeExperiment } from "../../helpers/fixtures";
import { isolateRedis } from "../../helpers/isolate";
import { makeTurn } from "../../helpers/turns";
import { waitFor } from "../../helpers/waitFor";

const prefix = isolateRedis("judge-crash");

const { enqueue, queue, closeQueues } = await import("../../../server/platform/bus/queues");
const { db } = await import("../../../server/platform/db/client");
const { startFakePrmServer } = await import("../../fakes/prmServer");

const root = path.resolve(import.meta.dirname, "../../..");
const TURNS = 12;
let fake: Awaited<ReturnType<typeof startFakePrmServer>>;
let prm: PrmScript;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  fake = await startFakePrmServer();
  prm = new PrmScript(fake);
  // Slow answers keep several turns in flight at any moment.
  prm.fallback = () => ({ ...boxed(1), delayMs: 400 });
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await deleteExperiments();
  await closeQueues();
  await fake?.close();
});

function startWorker(experimentId: string): { child: ChildProcess; output: () => string } {
  // tsx as a loader in ONE process: the tsx CLI would run the worker as its child, and SIGKILL cannot be
  // relayed (SIGTERM is, but with a 30 ms hand-shake that SIGKILLs a busy child).
  const child = spawn(process.execPath, ["--import", "tsx", "workers/judge/main.ts"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      REDIS_PREFIX: prefix,
      JUDGE_CONCURRENCY: "4",
      JUDGE_LOCK_MS: "2000",
      JUDGE_TIMEOUT_MS: "20000",
      JUDGE_RETRIES: "0",
      JUDGE_SWEEP_INTERVAL_MS: "0",
      JUDGE_METRICS_INTERVAL_MS: "1000",
      JUDGE_EXPERIMENTS: experimentId,
    },
  });
  children.add(child);
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

it("a worker killed with SIGKILL mid-batch loses and duplicates nothing after restart; SIGTERM finishes in-flight turns", async () => {
  const exp = (
    await makeExperiment({ method: "grpo", judge: { backend: { kind: "sglang", baseUrl: fake.url, model: "prm" } } })
  ).id;
  const tags: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < TURNS; i++) {
    const tag = prm.script([]);
    tags.push(tag);
    ids.push(await makeTurn({ experimentId: exp, content: `Answer ${i} [${tag}]` }));
  }
  for (const id of ids) await enqueue("judgeTurn", { turnId: id, experimentId: exp }, id);
  const judgedTurns = async () =>
    new Set(
      (await db().judgment.findMany({ where: { turnId: { in: ids } }, select: { turnId: true } })).map((j) => j.turnId),
    );

  const first = startWorker(exp);
  // Kill once some turns are done and at least one other is mid-flight (its judge calls started).
  const inFlightAtKill = await waitFor(
    "judged turns and a turn in flight",
    async () => {
      const done = await judgedTurns();
      const inFlight = ids.filter((id, i) => !done.has(id) && (prm.calls.get(tags[i]) ?? 0) > 0);
      return done.size >= 2 && inFlight.length > 0 ? inFlight : null;
    },
    120_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${first.output()}`);
  });
  first.child.kill("SIGKILL");
  expect((await exited(first.child)).signal).toBe("SIGKILL");
  const judgedAtKill = (await judgedTurns()).size;
  expect(judgedAtKill).toBeLessThan(TURNS);

  const second = startWorker(exp);
  await waitFor("every turn judged after the restart", async () => (await judgedTurns()).size === TURNS, 120_000).catch(
    (err: Error) => {
      throw new Error(`${err.message}\n${second.output()}`);
    },
  );

  const judgments = await db().judgment.findMany({ where: { turnId: { in: ids } }, include: { votes: true } });
  expect(judgments).toHaveLength(TURNS);
  expect(new Set(judgments.map((j) => j.turnId)).size).toBe(TURNS);
  for (const j of judgments) {
    expect(j.score).toBe(1);
    expect(j.votes.map((v) => v.index).sort()).toEqual([0, 1, 2]);
  }
  // The turns cut off by the kill were judged by the second worker (re-delivered, not lost).
  for (const id of inFlightAtKill) expect(judgments.some((j) => j.turnId === id)).toBe(true);

  // Graceful stop mid-batch: SIGTERM lets the turns in flight finish, leaves the rest queued, exits 0.
  const more: string[] = [];
  const moreTags: string[] = [];
  for (let i = 0; i < 8; i++) {
    const tag = prm.script([]);
    moreTags.push(tag);
    more.push(await makeTurn({ experimentId: exp, content: `More ${i} [${tag}]` }));
  }
  for (const id of more) await enqueue("judgeTurn", { turnId: id, experimentId: exp }, id);
  const judgedMore = async () =>
    new Set(
      (await db().judgment.findMany({ where: { turnId: { in: more } }, select: { turnId: true } })).map(
        (j) => j.turnId,
      ),
    );
  const inFlightAtTerm = await waitFor("a turn in flight", async () => {
    const done = await judgedMore();
    const inFlight = more.filter((id, i) => !done.has(id) && (prm.calls.get(moreTags[i]) ?? 0) > 0);
    return inFlight.length > 0 ? inFlight : null;
  });
  second.child.kill("SIGTERM");
  expect(await exited(second.child)).toEqual({ code: 0, signal: null });
  expect(second.output()).toContain("SIGTERM received");
  const doneAfterTerm = await judgedMore();
  for (const id of inFlightAtTerm) expect(doneAfterTerm.has(id)).toBe(true);
  for (const id of more.filter((id) => !doneAfterTerm.has(id))) {
    expect(await (await queue("judgeTurn").getJob(id))?.getState()).toBe("waiting");
  }
}, 300_000);
