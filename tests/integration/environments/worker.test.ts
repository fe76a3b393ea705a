// The episode worker on real Postgres, Redis (BullMQ) and the real recording proxy: a launch queues a GRPO
// group of tool-call episodes; the worker claims each once, answers the agent's calc calls in-process, scores
// the boxed answer, records every step as a turn of the episode's proxy session, and writes the group's
// advantages once the group has ended. The sweeper gives a lost worker's episode another attempt, then fails it,
// and tops up standing launches.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import {
  EnvironmentCreateInput,
  EpisodeLaunchInput,
  LaunchSummaryInput,
  TaskSetImportInput,
} from "../../../server/environments/schemas";
import { createEnvironment, importTaskSet, launchEpisodes, launchSummary } from "../../../server/environments/service";
import { claimEpisode, startEpisodeWorker, sweepEpisodes } from "../../../server/environments/episodes/worker";
import { computeGroupAdvantages } from "../../../server/environments/advantages/group";
import { AppError } from "../../../server/platform/errors";
import { isolateRedis } from "../../helpers/isolate";
import { collectSamples } from "../../../server/training/samples";
import { ADMIN, makeRun } from "../../helpers/fixtures";
import { waitFor } from "../../helpers/waitFor";
import { harness, type Harness } from "../proxy/setup";

isolateRedis("env-worker");

// With a sentence before the call, so the recorded turn has response tokens to train on.
const calc = (expression: string) => ({
  content: "Let me compute it.",
  toolCalls: [{ name: "calc", arguments: JSON.stringify({ expression }) }],
});

describe("episode worker", () => {
  let h: Harness;
  let environmentId: string;
  let taskSetId: string;
  let worker: ReturnType<typeof startEpisodeWorker>;
  let runId: string;
  beforeAll(async () => {
    h = await harness({ fake: { tokenIds: true } });
    runId = (await makeRun(h.experiment.id)).id;
    environmentId = (
      await createEnvironment(
        ADMIN,
        EnvironmentCreateInput.parse({ experiment: h.experiment.id, name: "toolcall", tools: ["calc", "lookup"] }),
      )
    ).id;
    taskSetId = (
      await importTaskSet(
        ADMIN,
        TaskSetImportInput.parse({
          experiment: h.experiment.id,
          name: "arithmetic",
          format: "jsonl",
          text: readFileSync("examples/environments/toolcall/arithmetic.jsonl", "utf8"),
          heldOutFraction: 0,
        }),
      )
    ).id;
    worker = startEpisodeWorker({
      agentFor: async () => ({ baseUrl: `${h.proxy.url}/v1`, apiKey: h.key, model: h.fake.model }),
      // One at a time, so the fake upstream's scripted replies go to the episodes in order.
      concurrency: 1,
      perEnvironment: 1,
      staleMs: 3_600_000,
      maxAttempts: 2,
      sweepMs: 3_600_000,
      prmWaitMs: 3_600_000,
      experimentIds: [h.experiment.id],
    });
  });
  afterAll(async () => {
    await worker?.close();
    await h?.close();
  });

  it("runs a launched group: tools answered, answers scored, steps recorded as turns, GRPO advantages", async () => {
    h.fake.reset();
    // Episode 0 computes and answers right; episode 1 answers without the tool, wrongly.
    h.fake.enqueue(calc("17 * 23"), { content: "So the answer is \\boxed{391}." }, { content: "\\boxed{381}" });
    const launch = await launchEpisodes(
      ADMIN,
      EpisodeLaunchInput.parse({ environmentId, taskSetId, taskKeys: ["mul-17-23"], n: 2, maxSteps: 4 }),
    );
    expect(launch).toMatchObject({ episodes: 2, groups: 1 });
    const episodes = await waitFor("the group's advantages", async () => {
      const rows = await db().episode.findMany({
        where: { groupKey: `${launch.launchId}:mul-17-23` },
        orderBy: { sampleIndex: "asc" },
        include: { steps: { orderBy: { index: "asc" } } },
      });
      return rows.every((e) => e.status === "DONE" && e.steps.every((s) => s.advantage !== null)) ? rows : null;
    });
    expect(episodes.map((e) => [e.outcome, e.attempts, e.truncation])).toEqual([
      [1, 1, null],
      [-1, 1, null],
    ]);
    const [right, wrong] = episodes;
    expect(right.steps).toHaveLength(2);
    const obs = right.steps[0].observation as { results: { content: string }[] };
    expect(obs.results[0].content).toBe("391");
    // The upstream read the calc result back as the tool message answering its call.
    const second = h.fake.requests[1].body.messages as { role: string; content: string }[];
    expect(second.at(-1)).toMatchObject({ role: "tool", content: "391" });
    // Outcomes +1 and −1: mean 0, population std 1, so A = ±1 / (1 + 1e-6) on every step.
    const a = 1 / (1 + 1e-6);
    expect(right.steps.map((s) => s.advantage)).toEqual([a, a]);
    expect(wrong.steps.map((s) => s.advantage)).toEqual([-a]);
    // Every step is a recorded turn of the episode's own proxy session.
    const turns = await waitFor("the recorded turns", async () => {
      const rows = await db().turn.findMany({
        where: { id: { in: right.steps.map((s) => s.turnId!) } },
        include: { session: true },
      });
      return rows.length === 2 ? rows : null;
    });
    expect(new Set(turns.map((t) => t.session.externalId))).toEqual(new Set([right.sessionId]));
    // One task, two attempts, one passed: pass@1 0.5 (one task: no spread), pass@2 1, pass@4 undefined.
    const summary = await launchSummary(
      ADMIN,
      LaunchSummaryInput.parse({ experiment: h.experiment.id, launchId: launch.launchId, k: 2 }),
    );
    expect(summary).toMatchObject({
      episodes: 2,
      failed: 0,
      truncated: 0,
      policyVersions: [0],
      passAt1: { k: 1, tasks: 1, mean: 0.5, low: 0.5, high: 0.5 },
      passAtK: { k: 2, tasks: 1, mean: 1 },
      tasks: [{ key: "mul-17-23", n: 2, c: 1, passAt1: 0.5, passAtK: 1 }],
    });

    // The trainer's sample collection takes each step's turn at its step advantage, not a judge's label.
    await waitFor("the wrong episode's turn", async () =>
      (await db().turn.count({ where: { id: wrong.steps[0].turnId! } })) === 1 ? true : null,
    );
    await collectSamples(runId);
    const samples = await db().sample.findMany({
      where: { runId, turnId: { in: [...right.steps, ...wrong.steps].map((s) => s.turnId!) } },
    });
    const byTurn = new Map(samples.map((x) => [x.turnId, x]));
    expect([...right.steps, ...wrong.steps].map((s) => byTurn.get(s.turnId!)?.reward)).toEqual([a, a, -a]);
    expect(samples.map((x) => [x.kind, x.labelSource, x.excludeReason])).toEqual(Array(3).fill(["RL", "JUDGE", null]));
  });

  it("a step-PRM group waits for the judge's votes on its steps, then step_wise scores each step by them", async () => {
    h.fake.reset();
    h.fake.enqueue(calc("128 + 256 + 512"), { content: "\\boxed{896}" }, { content: "\\boxed{900}" });
    const launch = await launchEpisodes(
      ADMIN,
      EpisodeLaunchInput.parse({
        environmentId,
        taskSetId,
        taskKeys: ["sum-3"],
        n: 2,
        estimator: "step_wise",
        prm: true,
      }),
    );
    const groupKey = `${launch.launchId}:sum-3`;
    const ended = await waitFor("both episodes", async () => {
      const rows = await db().episode.findMany({
        where: { groupKey },
        orderBy: { sampleIndex: "asc" },
        include: { steps: { orderBy: { index: "asc" } } },
      });
      return rows.every((e) => e.status === "DONE") ? rows : null;
    });
    // No judgment yet: the group waits (no advantages, nothing for the trainer).
    expect(await computeGroupAdvantages(groupKey, { prmWaitMs: 3_600_000 })).toBeNull();
    expect(ended.flatMap((e) => e.steps.map((s) => s.advantage))).toEqual([null, null, null]);
    const turnIds = ended.flatMap((e) => e.steps.map((s) => s.turnId!));
    await waitFor("the step turns", async () =>
      (await db().turn.count({ where: { id: { in: turnIds } } })) === 3 ? true : null,
    );
    const votes = [
      [1, 1, 0],
      [1, 1, 1],
      [-1, -1, -1],
    ];
    for (const [i, turnId] of turnIds.entries())
      await db().judgment.create({
        data: {
          turnId,
          judgeVersion: "test",
          judgeKind: "test",
          model: "test",
          promptVersion: "test",
          score: Math.sign(votes[i].reduce((a, b) => a + b, 0)),
          votes: { create: votes[i].map((value, index) => ({ kind: "prm", index, raw: `\\boxed{${value}}`, value })) },
        },
      });
    expect(await computeGroupAdvantages(groupKey, { prmWaitMs: 3_600_000 })).toMatchObject({ members: 2 });
    const steps = await db().episodeStep.findMany({
      where: { episodeId: { in: ended.map((e) => e.id) } },
      orderBy: [{ episodeId: "asc" }, { index: "asc" }],
    });
    const byTurn = new Map(steps.map((s) => [s.turnId, s]));
    const [s00, s01, s10] = turnIds.map((t) => byTurn.get(t)!);
    expect([s00.prmScore, s01.prmScore, s10.prmScore]).toEqual([2 / 3, 1, -1]);
    expect(s00.prmVotes).toEqual([1, 1, 0]);
    // Step 0's bucket {2/3, −1}: mean −1/6, population std 5/6, so ±(5/6)/(5/6 + 1e-6); step 1 is alone: raw 1.
    const z = 5 / 6 / (5 / 6 + 1e-6);
    expect(s00.advantage).toBeCloseTo(z, 12);
    expect(s10.advantage).toBeCloseTo(-z, 12);
    expect(s01.advantage).toBe(1);
  });

  it("stops at the token budget: spent by tool calls, or a reply cut at it, which is no final answer", async () => {
    h.fake.reset();
    h.fake.enqueue(calc("17 * 23"), { content: "\\boxed{391}", finishReason: "length" });
    const launch = await launchEpisodes(
      ADMIN,
      EpisodeLaunchInput.parse({ environmentId, taskSetId, taskKeys: ["mul-17-23"], n: 2, maxTokens: 2 }),
    );
    const rows = await waitFor("both episodes", async () => {
      const r = await db().episode.findMany({
        where: { groupKey: `${launch.launchId}:mul-17-23` },
        orderBy: { sampleIndex: "asc" },
        include: { steps: true },
      });
      return r.every((e) => e.status === "DONE") ? r : null;
    });
    expect(rows.map((e) => [e.truncation, e.outcome, e.steps.length])).toEqual([
      ["token_budget", -1, 1],
      ["token_budget", -1, 1],
    ]);
    // The budget reached the upstream as max_tokens.
    expect(h.fake.requests.map((r) => r.body.max_tokens)).toEqual([2, 2]);
  });

  it("claims an episode once", async () => {
    h.fake.reset();
    h.fake.enqueue({ content: "\\boxed{896}" });
    const launch = await launchEpisodes(
      ADMIN,
      EpisodeLaunchInput.parse({ environmentId, taskSetId, taskKeys: ["sum-3"], n: 1 }),
    );
    const ep = await waitFor("the episode", async () => {
      const e = await db().episode.findFirst({ where: { groupKey: `${launch.launchId}:sum-3` } });
      return e?.status === "DONE" ? e : null;
    });
    expect(ep.outcome).toBe(1);
    expect(await claimEpisode(ep.id)).toBe(false);
  });

  it("its sweep tops up a standing launch: a train task's group runs, and as it ends the next task's is launched", async () => {
    h.fake.reset();
    const train = (
      await db().task.findMany({
        where: { setVersion: { setId: taskSetId }, split: "train" },
        orderBy: { index: "asc" },
      })
    ).map((t) => t.key);
    const s = await db().standingLaunch.create({
      data: {
        experimentId: h.experiment.id,
        environmentId,
        taskSetId,
        version: 1,
        n: 1,
        maxSteps: 2,
        estimator: "grpo",
        prm: false,
        maxGroupsInFlight: 1,
      },
    });
    const ended = (count: number) =>
      waitFor(`${count} standing group(s) ended with advantages`, async () => {
        const rows = await db().episode.findMany({ where: { standingLaunchId: s.id }, orderBy: { createdAt: "asc" } });
        return rows.length === count && rows.every((r) => r.advantagesAt) ? rows : null;
      });
    await worker.sweep();
    await ended(1);
    await worker.sweep();
    const rows = await ended(2);
    expect(rows.map((r) => r.groupKey)).toEqual([`${s.id}-0:${train[0]}`, `${s.id}-1:${train[1]}`]);
    await db().standingLaunch.update({ where: { id: s.id }, data: { active: false } });
    await worker.sweep();
    expect(await db().episode.count({ where: { standingLaunchId: s.id } })).toBe(2);
  });

  it("re-queues a lost worker's episode with a fresh start, then fails it after the last attempt", async () => {
    const launch = await launchEpisodes(
      ADMIN,
      EpisodeLaunchInput.parse({ environmentId, taskSetId, taskKeys: ["capital-fr"], n: 1 }),
    );
    const id = `${launch.launchId}-2-0`;
    // Stand in for a worker that claimed it and died: RUNNING, with a step and an old heartbeat.
    await worker.close();
    const old = new Date(Date.now() - 120_000);
    await db().episode.update({
      where: { id },
      data: { status: "RUNNING", attempts: 1, heartbeatAt: old },
    });
    await db().episodeStep.create({ data: { episodeId: id, index: 0, action: {}, observation: {} } });
    const first = await sweepEpisodes({ staleMs: 60_000, maxAttempts: 2, experimentIds: [h.experiment.id] });
    expect(first).toEqual({ requeued: [id], failed: [], computed: [] });
    expect(await claimEpisode(id)).toBe(true);
    const claimed = await db().episode.findUniqueOrThrow({ where: { id }, include: { steps: true } });
    expect(claimed).toMatchObject({ status: "RUNNING", attempts: 2 });
    expect(claimed.steps).toEqual([]);
    await db().episode.update({ where: { id }, data: { heartbeatAt: old } });
    const second = await sweepEpisodes({ staleMs: 60_000, maxAttempts: 2, experimentIds: [h.experiment.id] });
    expect(second).toEqual({ requeued: [], failed: [id], computed: [] });
    expect(await db().episode.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: "FAILED", attempts: 2 });
  });

  it("refuses a launch whose tasks need a tool the environment lacks", async () => {
    const bashOnly = await createEnvironment(
      ADMIN,
      EnvironmentCreateInput.parse({ experiment: h.experiment.id, name: "bash-only" }),
    );
    const err = await launchEpisodes(
      ADMIN,
      EpisodeLaunchInput.parse({ environmentId: bashOnly.id, taskSetId, n: 1 }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).message).toContain("does not offer calc");
  });
});
