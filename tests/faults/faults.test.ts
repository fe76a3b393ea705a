// Fault injection under steady traffic: the real worker processes (proxy, judge, trainer) run on a private
// Redis and reach Postgres through a relay. In turn: SIGKILL the proxy, the judge, and the trainer mid-step
// (each restarted), restart Redis, cut and restore the Postgres connection. Afterwards the database must
// show: every 2xx has exactly one turn, every ready turn is judged exactly once per judge version, no
// sample trains twice, steps and policy versions are contiguous. Recovery times are printed, not asserted.
import { afterAll, beforeAll, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { Cluster } from "../../bench/lib/cluster";
import { checkInvariants } from "../../bench/lib/invariants";
import { formatRecovery, type Recovery } from "../../bench/lib/report";
import { startSystem, type PipelineSystem } from "../../bench/lib/system";
import { Traffic } from "../../bench/lib/traffic";

let sys: PipelineSystem;
let cluster: Cluster;
let traffic: Traffic | null = null;

/** Where the pipeline stands, for failure messages. */
async function state(): Promise<string> {
  const rs = traffic?.records ?? [];
  const errors = rs.filter((r) => !r.ok && r.endedAt);
  const where = { experimentId: sys.experiment.id };
  const [turns, judged, samples, run] = await Promise.all([
    db().turn.count({ where }),
    db().judgment.count({ where: { turn: where } }),
    db().sample.count({ where: { runId: sys.runId } }),
    db().run.findUnique({ where: { id: sys.runId }, select: { status: true, lastStep: true, statusMessage: true } }),
  ]);
  return `requests ${rs.length} (${errors.length} failed, last: ${errors.at(-1)?.error ?? "-"}); turns ${turns}, judgments ${judged}, samples ${samples}; run ${JSON.stringify(run)}`;
}

beforeAll(async () => {
  sys = await startSystem({ batchSize: 4 });
  cluster = new Cluster(sys.workerEnv);
});

afterAll(async () => {
  await cluster?.stopAll(5000);
  await sys?.close();
});

async function until<T>(what: string, fn: () => Promise<T | null | false | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}\n${await state()}\n--- serve ---\n${cluster.tail("serve", 15)}\n--- judge ---\n${cluster.tail("judge", 15)}\n--- train ---\n${cluster.tail("train", 15)}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

const proxyUp = () =>
  until("the proxy to answer", async () => (await fetch(`${sys.proxyUrl}/healthz`).catch(() => null))?.ok, 60_000);
/** When the first row of a kind was created after `t` (the stage made progress), or null. */
const judgedAfter = async (t: number) =>
  (
    await db().judgment.findFirst({
      where: { turn: { experimentId: sys.experiment.id }, createdAt: { gt: new Date(t) } },
      orderBy: { createdAt: "asc" },
    })
  )?.createdAt.getTime();
const steppedAfter = async (t: number) =>
  (
    await db().trainingStep.findFirst({
      where: { runId: sys.runId, createdAt: { gt: new Date(t) } },
      orderBy: { createdAt: "asc" },
    })
  )?.createdAt.getTime();
const steps = () => db().trainingStep.count({ where: { runId: sys.runId } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("loses, repeats and skips nothing through worker kills, a Redis restart and a Postgres outage", async () => {
  for (const w of ["serve", "judge", "train"] as const) cluster.start(w);
  await proxyUp();
  const load = new Traffic({
    proxyUrl: sys.proxyUrl,
    apiKey: sys.key,
    model: sys.experiment.slug,
    users: 3,
    turnsPerSession: 3,
    maxTokens: 8,
    thinkMs: 250,
    timeoutMs: 20_000,
    tag: "faults",
  });
  traffic = load;
  load.start();
  const recoveries: Recovery[] = [];
  try {
    // Steady state first: turns judged and at least one training step.
    await until("the first training step", async () => (await steps()) >= 1, 180_000);

    const worker = async (
      name: "serve" | "judge" | "train",
      fault: string,
      progress: (t: number) => Promise<number | null | undefined>,
      before?: () => Promise<void>,
    ) => {
      await before?.();
      const at = Date.now();
      await cluster.kill(name);
      cluster.start(name);
      if (name === "serve") await proxyUp();
      const restored = Date.now();
      const recoveredAt = await until(`${fault}: recovery`, () => progress(restored), 120_000);
      recoveries.push({ fault, at, restored, recoveredAt, requests: load.during(at, restored) });
    };

    await worker("serve", "proxy SIGKILL", async (t) => load.firstOkAfter(t)?.endedAt);
    await worker("judge", "judge SIGKILL", judgedAfter);
    // The trainer dies while it computes, saves or commits a step.
    const trainer = cluster.get("train");
    const seen = trainer.lines.length;
    await worker("train", "trainer SIGKILL mid-step", steppedAfter, () =>
      until(
        "the trainer to start a step",
        async () => trainer.lines.slice(seen).some((l) => / step \d+ on /.test(l)),
        120_000,
      ).then(() => undefined),
    );

    let at = Date.now();
    await sys.restartRedis();
    let restored = Date.now();
    recoveries.push({
      fault: "Redis restart",
      at,
      restored,
      recoveredAt: await until("Redis restart: recovery", () => judgedAfter(restored), 120_000),
      requests: load.during(at, restored),
    });

    at = Date.now();
    await sys.relay.down();
    await sleep(4000);
    await sys.relay.up();
    restored = Date.now();
    // Recovered when the pipeline runs end to end again: a new turn judged and a new step taken.
    const recoveredAt = Math.max(
      await until("Postgres outage: judging again", () => judgedAfter(restored), 120_000),
      await until("Postgres outage: training again", () => steppedAfter(restored), 120_000),
    );
    recoveries.push({
      fault: "Postgres connection drop (4 s)",
      at,
      restored,
      recoveredAt,
      requests: load.during(at, restored),
    });
  } finally {
    await load.stop();
  }
  const records = load.records;

  // Quiesce: every answered turn recorded (strictly: the proxy journals a turn before its last bytes, so a
  // SIGKILL right after an answer loses nothing) and every ready turn judged (the sweeper catches stragglers).
  const okTurnIds = records.filter((r) => r.ok).map((r) => r.turnId!);
  const report = await until(
    "the pipeline to settle",
    async () => {
      const r = await checkInvariants({ experimentId: sys.experiment.id, runId: sys.runId, okTurnIds });
      return r.violations.length === 0 ? r : null;
    },
    90_000,
  ).catch(async () => checkInvariants({ experimentId: sys.experiment.id, runId: sys.runId, okTurnIds }));
  await cluster.stopAll();
  const final = await checkInvariants({ experimentId: sys.experiment.id, runId: sys.runId, okTurnIds });

  console.log(formatRecovery(recoveries, records.length, final.counts));
  expect(report.violations).toEqual([]);
  expect(final.violations).toEqual([]);
  // The suite proved something: traffic flowed, was judged and trained across the faults.
  expect(final.counts.okRequests).toBeGreaterThan(0);
  expect(final.counts.judgments).toBeGreaterThan(0);
  expect(final.counts.steps).toBeGreaterThan(1);
  expect(recoveries).toHaveLength(5);
}, 600_000);
