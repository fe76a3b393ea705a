// The judge worker in-process on a real BullMQ queue: the heuristic judge end to end, duplicate
// delivery, retry with backoff while the endpoint is down, the sweeper, and the metrics it publishes
// and persists. Everything is polled against Postgres with a deadline.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgmentsOf, PrmScript, boxed } from "./helpers";
import { deleteExperiments, makeExperiment } from "../../helpers/fixtures";
import { isolateRedis } from "../../helpers/isolate";
import { makeTurn } from "../../helpers/turns";
import { waitFor } from "../../helpers/waitFor";

const prefix = isolateRedis("judge-queue");

const { enqueue, queue, closeQueues } = await import("../../../server/platform/bus/queues");
const { subscribe } = await import("../../../server/platform/bus/pubsub");
const { db } = await import("../../../server/platform/db/client");
const { HEURISTIC_JUDGE_LABEL, HEURISTIC_JUDGE_MODEL } = await import("../../../server/judge/core/heuristic");
const { expectedJudgeVersion } = await import("../../../server/judge/worker/settings");
const { ExperimentConfigSchema } = await import("../../../server/config/experimentConfig");
const { startJudgeWorker } = await import("../../../server/judge/worker/worker");
const { startFakePrmServer } = await import("../../fakes/prmServer");

type Worker = ReturnType<typeof startJudgeWorker>;
let worker: Worker;
let fake: Awaited<ReturnType<typeof startFakePrmServer>>;
let prm: PrmScript;
let heuristic: string;
let model: string;
let metricsExp: string;
let runId: string;
const activities: string[] = [];
const published: { experimentId: string; runId: string | null; points: { name: string; value: number }[] }[] = [];
let unsubscribe: () => Promise<void>;

// An OpenAI-compatible policy has no teacher: hints are kept, no OPD sample (stored at once, not retried).
const noTeacherPolicy = { kind: "openai" as const, baseUrl: "http://127.0.0.1:9/v1", model: "policy" };

beforeAll(async () => {
  expect(process.env.REDIS_PREFIX).toBe(prefix);
  fake = await startFakePrmServer();
  prm = new PrmScript(fake);
  heuristic = (await makeExperiment({ method: "combine", policy: noTeacherPolicy })).id;
  model = (
    await makeExperiment({ method: "grpo", judge: { backend: { kind: "sglang", baseUrl: fake.url, model: "prm" } } })
  ).id;
  metricsExp = (await makeExperiment({ method: "grpo" })).id;
  runId = (
    await db().run.create({
      data: { experimentId: metricsExp, number: 1, config: {}, status: "RUNNING", trainerBackend: "embedded" },
    })
  ).id;
  unsubscribe = await subscribe("metrics", (m) => published.push(m));
  worker = startJudgeWorker({
    concurrency: 2,
    lockDurationMs: 5000,
    jobTimeoutMs: 60_000,
    sweepIntervalMs: 0, // driven by hand below
    sweepMinAgeMs: 30_000,
    failedRetryAfterMs: 0,
    metricsIntervalMs: 250,
    experimentIds: [heuristic, model, metricsExp],
    runtime: { judgeCalls: { timeoutMs: 2000, retries: 0 } },
    setActivity: (a) => activities.push(a),
  });
});

afterAll(async () => {
  await worker?.close();
  await deleteExperiments();
  await unsubscribe?.();
  await closeQueues();
  await fake?.close();
});

const judged = (turnId: string) => waitFor(`a judgment of ${turnId}`, async () => (await judgmentsOf(turnId))[0]);

describe("heuristic judge through the queue", () => {
  it("judges approvals, corrections (with a hint from the instruction) and tool results, named as heuristic", async () => {
    const thanks = await makeTurn({
      experimentId: heuristic,
      content: "Paris.",
      next: { role: "user", content: "perfect, thanks!" },
    });
    const correction = await makeTurn({
      experimentId: heuristic,
      content: "A long essay…",
      next: { role: "user", content: "no — shorter please, two sentences at most" },
    });
    const toolOk = await makeTurn({
      experimentId: heuristic,
      content: "",
      toolCalls: [{ id: "c", type: "function", function: { name: "ls", arguments: "{}" } }],
      next: { role: "tool", content: "a.txt\nb.txt" },
    });
    const toolErr = await makeTurn({
      experimentId: heuristic,
      content: "",
      toolCalls: [{ id: "c", type: "function", function: { name: "cat", arguments: "{}" } }],
      next: { role: "tool", content: "cat: x: No such file or directory" },
    });
    for (const id of [thanks, correction, toolOk, toolErr])
      await enqueue("judgeTurn", { turnId: id, experimentId: heuristic }, id);

    const t = await judged(thanks);
    expect(t).toMatchObject({
      judgeKind: "heuristic",
      model: HEURISTIC_JUDGE_MODEL,
      score: 1,
      dispatch: "RL",
      excluded: false,
      hintAccepted: false,
    });
    expect(t.votes.filter((v) => v.kind === "eval").map((v) => v.value)).toEqual([1, 1, 1]);
    expect(t.votes.every((v) => v.raw.startsWith(`${HEURISTIC_JUDGE_LABEL}.`))).toBe(true);

    const c = await judged(correction);
    expect(c).toMatchObject({
      score: -1,
      hint: "The user wants shorter answers: two sentences at most.",
      hintAccepted: true,
      teacherLogprobs: [],
    });
    // No teacher for an OpenAI policy: the eval ±1 still makes an RL sample; the reason is on record.
    expect(c).toMatchObject({ dispatch: "RL", excluded: false, settings: { teacherError: "no teacher configured" } });

    expect(await judged(toolOk)).toMatchObject({ score: 1, dispatch: "RL" });
    expect(await judged(toolErr)).toMatchObject({ score: -1, dispatch: "RL", hint: null });
    expect(activities.some((a) => a.startsWith("judging turn "))).toBe(true);
  });

  it("a job delivered twice (two job ids for one turn) gives one judgment", async () => {
    const id = await makeTurn({ experimentId: heuristic, content: "Done.", next: { role: "user", content: "great" } });
    await enqueue("judgeTurn", { turnId: id, experimentId: heuristic }, id);
    await enqueue("judgeTurn", { turnId: id, experimentId: heuristic }, `${id}-again`);
    for (const jobId of [id, `${id}-again`]) {
      await waitFor(`job ${jobId} completed`, async () => (await queue("judgeTurn").getJob(jobId))?.isCompleted());
    }
    expect(await judgmentsOf(id)).toHaveLength(1);
  });
});

describe("retries", () => {
  it("while every judge call fails the job is retried with backoff, then judged once the endpoint answers", async () => {
    const tag = prm.script([{ status: 503 }, { status: 503 }, { status: 503 }, boxed(-1), boxed(-1), boxed(1)]);
    const id = await makeTurn({ experimentId: model, content: `Answer [${tag}]` });
    await enqueue("judgeTurn", { turnId: id, experimentId: model }, id);
    const j = await judged(id);
    expect(j).toMatchObject({ score: -1, excluded: false });
    expect(j.votes.map((v) => v.error)).toEqual([null, null, null]);
    const job = await queue("judgeTurn").getJob(id);
    expect(job?.attemptsMade).toBe(2); // one failed attempt, then the one that stored
    expect(prm.calls.get(tag)).toBe(6);
  });

  it("a job that ran out of attempts during an outage fails without a judgment; the sweeper brings it back", async () => {
    const tag = prm.script([{ status: 503 }, { status: 503 }, { status: 503 }]);
    const id = await makeTurn({
      experimentId: model,
      content: `Answer [${tag}]`,
      readyAt: new Date(Date.now() - 120_000),
    });
    await queue("judgeTurn").add("judgeTurn", { turnId: id, experimentId: model }, { jobId: id, attempts: 1 });
    await waitFor("the job failed", async () => (await queue("judgeTurn").getJob(id))?.isFailed());
    expect(await judgmentsOf(id)).toHaveLength(0);

    prm.add(tag, [boxed(1), boxed(1), boxed(1)]);
    await worker.sweep();
    expect(await judged(id)).toMatchObject({ score: 1 });
  });
});

describe("sweeper", () => {
  it("queues turns ready for a while with no judgment, and leaves fresh, judged and side turns alone", async () => {
    const old = new Date(Date.now() - 120_000);
    const stale = await makeTurn({
      experimentId: heuristic,
      content: "x",
      readyAt: old,
      next: { role: "user", content: "thanks" },
    });
    const ended = await makeTurn({
      experimentId: heuristic,
      content: "y",
      readyAt: old,
      next: null,
      sessionDone: true,
    });
    const fresh = await makeTurn({ experimentId: heuristic, content: "z" });
    const side = await makeTurn({ experimentId: heuristic, content: "s", readyAt: old, turnType: "SIDE" });
    const waiting = await makeTurn({
      experimentId: heuristic,
      content: "w",
      readyAt: old,
      next: null,
      sessionDone: false,
    });
    await worker.sweep();
    expect(await judged(stale)).toMatchObject({ score: 1 });
    expect(await judged(ended)).toMatchObject({ excluded: true, excludeReason: "no_next_state" });
    for (const id of [fresh, side, waiting]) expect(await queue("judgeTurn").getJob(id)).toBeUndefined();
  });

  it("a new judge version (config change) re-queues a turn whose job already completed", async () => {
    const exp = (await makeExperiment({ method: "grpo" })).id;
    const id = await makeTurn({
      experimentId: exp,
      content: "x",
      readyAt: new Date(Date.now() - 120_000),
      next: { role: "user", content: "thanks" },
    });
    await enqueue("judgeTurn", { turnId: id, experimentId: exp }, id);
    const first = await judged(id);
    await waitFor("the first job completed", async () => (await queue("judgeTurn").getJob(id))?.isCompleted());

    const config = ExperimentConfigSchema.parse({ method: "grpo", judge: { votes: 5 } });
    await db().experiment.update({ where: { id: exp }, data: { config } });
    const { sweepUnjudged } = await import("../../../server/judge/worker/sweeper");
    expect(await sweepUnjudged({ minAgeMs: 30_000, limit: 100, failedRetryAfterMs: 0, experimentIds: [exp] })).toEqual({
      queued: 1,
    });
    const second = await waitFor("a judgment under the new version", async () =>
      db().judgment.findUnique({
        where: { turnId_judgeVersion: { turnId: id, judgeVersion: expectedJudgeVersion(config) } },
        include: { votes: true },
      }),
    );
    expect(second.judgeVersion).not.toBe(first.judgeVersion);
    expect(second.votes).toHaveLength(5);
    expect(await judgmentsOf(id)).toHaveLength(2);
    // Judged under the current version: nothing more to sweep.
    expect(await sweepUnjudged({ minAgeMs: 30_000, limit: 100, failedRetryAfterMs: 0, experimentIds: [exp] })).toEqual({
      queued: 0,
    });
  });
});

describe("metrics", () => {
  it("publishes and persists per-experiment points for the live run; counts add up to what was judged", async () => {
    const next = ["thanks, perfect", "no, that is wrong", "hmm", "ok"];
    const ids: string[] = [];
    for (const content of next)
      ids.push(await makeTurn({ experimentId: metricsExp, content: "answer", next: { role: "user", content } }));
    for (const id of ids) await enqueue("judgeTurn", { turnId: id, experimentId: metricsExp }, id);
    for (const id of ids) await judged(id);
    const scores = await db().judgment.findMany({
      where: { turnId: { in: ids } },
      select: { score: true, excluded: true },
    });
    const sum = async (name: string) =>
      (await db().metricPoint.aggregate({ where: { experimentId: metricsExp, name }, _sum: { value: true } }))._sum
        .value;
    // A flush whose leadership check timed out under load hands its samples to the leader (this worker, at its
    // next flush) instead of writing them: flush until the points are there.
    await waitFor("the judged turns' metric points", async () => {
      await worker.flushMetrics();
      return (await sum("judge/score_pos")) !== null;
    });
    expect(await sum("judge/score_pos")).toBe(scores.filter((s) => s.score === 1).length);
    expect(await sum("judge/score_neg")).toBe(scores.filter((s) => s.score === -1).length);
    expect(await sum("judge/score_zero")).toBe(scores.filter((s) => s.score === 0).length);
    expect(await sum("judge/excluded")).toBe(scores.filter((s) => s.excluded).length);
    expect(scores.map((s) => s.score).sort()).toEqual([-1, 0, 0, 1]);

    const points = await db().metricPoint.findMany({ where: { experimentId: metricsExp }, orderBy: { id: "asc" } });
    expect(new Set(points.map((p) => p.runId))).toEqual(new Set([runId]));
    expect(points.filter((p) => p.name === "judge/vote_agreement").every((p) => p.value === 1)).toBe(true);
    const last = (name: string) => points.filter((p) => p.name === name).at(-1)?.value;
    expect(last("judge/queue_depth")).toBe(0);
    expect(last("judge/lag_ms")).toBe(0);
    const names = new Set(points.map((p) => p.name));
    for (const n of ["judge/judged_per_s", "judge/vote_latency_ms", "judge/queue_depth", "judge/lag_ms"])
      expect(names).toContain(n);

    await waitFor("a published metrics message", async () =>
      published.some((m) => m.experimentId === metricsExp && m.runId === runId),
    );
  });

  it("queue depth and lag come from Postgres: a ready turn nobody queued shows up", async () => {
    const exp = (await makeExperiment({ method: "grpo" })).id;
    await makeTurn({ experimentId: exp, content: "x", readyAt: new Date(Date.now() - 90_000) });
    const { backlogOf } = await import("../../../server/judge/worker/backlog");
    const backlog = await backlogOf(exp, expectedJudgeVersion(ExperimentConfigSchema.parse({ method: "grpo" })));
    expect(backlog.depth).toBe(1);
    // Ready 90 s ago: the lag is at least that (the clock only moves forward), and not absurdly more.
    expect(backlog.lagMs).toBeGreaterThanOrEqual(90_000);
    expect(backlog.lagMs).toBeLessThan(90_000 + 10 * 60_000);
  });
});
