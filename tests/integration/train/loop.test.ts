// The embedded training loop against Postgres, Redis and real checkpoints: a step at exactly batchSize,
// traces, the losses it used checked against values computed here, metrics, version announcements,
// pruning, promote/rollback, paused/stopped runs, reviewer hints, custom losses and stale samples.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { db } from "../../../server/platform/db/client";
import { loadCheckpoint, readCheckpointMeta } from "../../../server/engine/checkpoint";
import { disposeModel, forward } from "../../../server/engine/model";
import * as tf from "@tensorflow/tfjs-core";
import { packBatch, scoreResponse, tokenLogprobs } from "../../../server/engine/score";
import { promotePolicyVersion, rollbackPolicyVersion } from "../../../server/policyVersions/service";
import type { EmbeddedUpstream } from "../../../server/proxy/upstreams/embedded";
import { Trainer } from "../../../server/training/loop";
import { StepRecordSchema } from "../../../server/training/schemas";
import { buildBatch, hintedPromptIds, servedPromptIds } from "../../../server/training/trainInputs";
import { ExperimentConfigSchema } from "../../../server/config/experimentConfig";
import { overlapCounts, selectCandidatePerToken, topKIndices } from "../../../server/engine/hintSelection";
import { reassembleMessages } from "../../../server/recording/reassemble";
import { experimentCheckpointDir } from "../../../server/training/checkpoints";
import { makeJudgment } from "../../helpers/judgments";
import { collect, label, serveTurn, upstreamFor, type Message, type ServeSpec } from "./helpers";
import { makeBaseCheckpoint } from "../../../bench/lib/baseCheckpoint";
import { ADMIN, makeExperiment, makeRun } from "../../helpers/fixtures";
import { isolateDataDir, isolateRedis } from "../../helpers/isolate";

/**
 * The hand-computed losses below are one pass over the batch without the KL anchor; the embedded trainer's GRPO
 * defaults add both (config/experimentConfig.ts METHOD_HYPER_DEFAULTS), so these tests name the single pass.
 */
const ONE_PASS = { ppoEpochs: 1, baseKlCoef: 0 };

isolateRedis("train-loop");
let dataDir = "";
let base = "";
let upstream: EmbeddedUpstream;
let trainer: Trainer;
let seed = 100;

beforeAll(async () => {
  dataDir = await isolateDataDir("loop");
  base = await makeBaseCheckpoint(dataDir, 5);
  upstream = upstreamFor(base, 0);
  trainer = new Trainer({ dataDir, fillEveryMs: 0 });
});
afterAll(async () => {
  trainer.close();
  await upstream.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const ask = (experimentId: string, runId: string, over: Partial<ServeSpec> = {}, via = upstream) =>
  serveTurn(via, {
    experimentId,
    runId,
    messages: [{ role: "user", content: `Plan my week, please (${seed}).` }],
    seed: ++seed,
    ...over,
  });

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A judged (score ±1) turn; returns its id, behaviour log-probs and judgment id. */
async function judgedTurn(
  experimentId: string,
  runId: string,
  score: number,
  over: Partial<ServeSpec> = {},
  via = upstream,
) {
  const { turnId, served } = await ask(experimentId, runId, over, via);
  return { turnId, served, judgmentId: (await makeJudgment(turnId, { score })).id };
}

describe("a step at exactly batchSize", () => {
  it("trains the batch once it is full, commits version 1, and every sample traces to its turn, judgment and label", async () => {
    const { id: exp } = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: base },
      hyper: { ...ONE_PASS, batchSize: 4, lr: 1e-3 },
    });
    const runId = (await makeRun(exp)).id;
    const versions = await collect("policyVersion");
    const metrics = await collect("metrics");
    try {
      // A long conversation with a system prompt and tools: the engine cut the prompt to fit its context.
      const system: Message = { role: "system", content: "You are a planner. Keep answers short." };
      const long: Message[] = [system, { role: "user", content: "I have a lot to do this week: ".repeat(4) + "help?" }];
      const tools = [
        {
          type: "function",
          function: { name: "calendar", description: "read the calendar", parameters: { type: "object" } },
        },
      ];
      const a = await judgedTurn(exp, runId, 1, { messages: long, tools });
      const b = await judgedTurn(exp, runId, -1);
      const c = await judgedTurn(exp, runId, 1);
      const zero = await judgedTurn(exp, runId, 0); // excluded: never fills the batch
      const first = await trainer.tick(runId);
      expect(first).toEqual({ fill: { ready: 3, needed: 4 }, step: null });

      // The recorded prompt reproduces the served one: scoring it gives the behaviour log-probs back.
      const turnA = await db().turn.findUniqueOrThrow({ where: { id: a.turnId } });
      const tools2 = (await db().blob.findUniqueOrThrow({ where: { hash: turnA.toolsHash! } })).content;
      const prompt = servedPromptIds(await reassembleMessages(turnA), tools2, turnA.promptTokens)!;
      expect(turnA.promptTokens).toBeLessThan(servedPromptIds(await reassembleMessages(turnA), tools2, null)!.length);
      const baseModel = (await loadCheckpoint(base)).model;
      const rescored = scoreResponse(baseModel, prompt, turnA.tokenIds);
      disposeModel(baseModel);
      expect(Math.max(...rescored.map((x, i) => Math.abs(x - turnA.logprobs[i])))).toBeLessThan(1e-4);

      // A reviewer overrules the judge on c; d completes the batch.
      const relabel = await label(c.turnId, "REVIEWER", -1);
      const d = await judgedTurn(exp, runId, 1);
      const r = await trainer.tick(runId);
      expect(r.step).toMatchObject({ step: 1, version: 1, parentVersion: 0, outcome: "ACTIVE" });

      const step = await db().trainingStep.findUniqueOrThrow({
        where: { runId_step: { runId, step: 1 } },
        include: { samples: true },
      });
      expect(step.policyVersion).toBe(1);
      expect(step.samples.map((s) => s.turnId).sort()).toEqual([a, b, c, d].map((t) => t.turnId).sort());
      const record = StepRecordSchema.parse(step.metrics);
      expect(record.parentVersion).toBe(0);
      const byTurn = new Map(record.trace.map((t) => [t.turnId, t]));
      expect(byTurn.get(a.turnId)).toMatchObject({
        judgmentId: a.judgmentId,
        labelId: null,
        labelSource: "JUDGE",
        kind: "RL",
        reward: 1,
        staleness: 0,
        weight: 1,
      });
      expect(byTurn.get(b.turnId)).toMatchObject({ judgmentId: b.judgmentId, labelSource: "JUDGE", reward: -1 });
      expect(byTurn.get(c.turnId)).toMatchObject({
        judgmentId: c.judgmentId,
        labelId: relabel,
        labelSource: "REVIEWER",
        reward: -1,
      });
      expect(step.samples.find((s) => s.turnId === c.turnId)).toMatchObject({ reward: -1, labelSource: "REVIEWER" });
      expect(await db().sample.findFirst({ where: { turnId: zero.turnId } })).toMatchObject({
        excluded: true,
        excludeReason: "zero_score",
        stepId: null,
      });

      // Fresh samples (served by the very weights trained): ratio 1 everywhere, so the PPO loss is
      // −mean(reward) exactly and nothing is clipped.
      const v = record.values;
      expect(v["train/pg_loss"]).toBeCloseTo(-mean([1, -1, -1, 1]), 5);
      expect(Math.abs(v["train/ppo_kl"])).toBeLessThan(1e-5);
      expect(v["train/pg_clipfrac"]).toBe(0);
      expect(v["train/kl_loss"]).toBeCloseTo(0, 6); // the policy is still the reference
      expect(v).toMatchObject({
        "samples/accepted": 4,
        "samples/excluded": 1,
        "samples/rl_only": 4,
        "samples/both": 0,
        "samples/opd_only": 0,
        "staleness/max": 0,
        "rollout/reward_mean": 0,
      });
      expect(v["rollout/response_len/mean"]).toBeCloseTo(mean([a, b, c, d].map((t) => t.served.tokenIds.length)), 9);
      for (const name of [
        "train/loss",
        "train/entropy",
        "train/grad_norm",
        "perf/train_step_ms",
        "perf/tokens_per_s",
        "rollout/prm_eval_score",
      ])
        expect(v[name]).toBeTypeOf("number");

      // Version row, checkpoint on disk, run position, announcements.
      const pv = await db().policyVersion.findUniqueOrThrow({
        where: { experimentId_version: { experimentId: exp, version: 1 } },
      });
      expect(pv).toMatchObject({ status: "ACTIVE", parentVersion: 0, step: 1, runId });
      const meta = await readCheckpointMeta(pv.checkpointPath!);
      expect(meta).toMatchObject({ version: 1, step: 1, sha256: pv.checkpointSha });
      expect(meta.optimizer?.step).toBe(1);
      expect((await db().run.findUniqueOrThrow({ where: { id: runId } })).lastStep).toBe(1);
      expect(versions.messages).toContainEqual({ experimentId: exp, version: 1, checkpointPath: pv.checkpointPath });
      const persisted = await db().metricPoint.findMany({
        where: { runId, step: 1, name: { not: { startsWith: "batch/" } } },
      });
      expect(new Set(persisted.map((p) => p.name))).toEqual(new Set(Object.keys(v)));
      const published = metrics.messages.flatMap((m) =>
        m.points.filter((p) => p.step === 1 && m.runId === runId).map((p) => p.name),
      );
      expect(new Set(published)).toEqual(new Set([...Object.keys(v), "batch/fill", "batch/eta_s"]));
      const fills = await db().metricPoint.findMany({ where: { runId, name: "batch/fill" }, orderBy: { id: "asc" } });
      expect(fills.map((f) => [f.step, f.value])).toEqual([
        [0, 3],
        [0, 4],
        [1, 0],
      ]); // changes only, then the step empties it
      // Nothing is left to train: another tick does nothing.
      expect((await trainer.tick(runId)).step).toBeNull();
    } finally {
      await versions.close();
      await metrics.close();
    }
  });
});

describe("versions", () => {
  it("keeps the last K checkpoints; promote and roll back switch the served version and announce it", async () => {
    const { id: exp } = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: base },
      hyper: { ...ONE_PASS, batchSize: 2, lr: 1e-3, keepCheckpoints: 2 },
    });
    const runId = (await makeRun(exp)).id;
    const orphan = path.join(experimentCheckpointDir(exp, dataDir), "v42-deadbe"); // a dead trainer's uncommitted attempt
    await fs.mkdir(orphan, { recursive: true });
    for (let i = 0; i < 3; i++) {
      await judgedTurn(exp, runId, 1);
      await judgedTurn(exp, runId, -1);
      expect((await trainer.tick(runId)).step).toMatchObject({
        step: i + 1,
        version: i + 1,
        parentVersion: i,
        outcome: "ACTIVE",
      });
    }
    const rows = await db().policyVersion.findMany({ where: { experimentId: exp }, orderBy: { version: "asc" } });
    expect(rows.map((r) => [r.version, r.status, r.checkpointPath !== null])).toEqual([
      [1, "RETIRED", false],
      [2, "RETIRED", true],
      [3, "ACTIVE", true],
    ]);
    expect(rows[0].checkpointSha).toMatch(/^[0-9a-f]{64}$/); // the row keeps its identity
    expect((await fs.readdir(experimentCheckpointDir(exp, dataDir))).sort()).toEqual(
      [rows[1], rows[2]].map((r) => path.basename(r.checkpointPath!)).sort(),
    );
    expect(existsSync(orphan)).toBe(false);

    const versions = await collect("policyVersion");
    try {
      const back = await rollbackPolicyVersion(ADMIN, { experimentId: exp });
      expect(back.active).toEqual({ version: 2, checkpointPath: rows[1].checkpointPath });
      expect(back.previous).toBe(3);
      await expect(promotePolicyVersion(ADMIN, { experimentId: exp, version: 1 })).rejects.toThrow(/pruned/);

      // The trainer continues from what is served now: version 4 is trained from version 2.
      const t1 = await judgedTurn(exp, runId, 1);
      await judgedTurn(exp, runId, 1);
      expect((await trainer.tick(runId)).step).toMatchObject({
        step: 4,
        version: 4,
        parentVersion: 2,
        outcome: "ACTIVE",
      });
      expect((await db().sample.findFirstOrThrow({ where: { turnId: t1.turnId } })).staleness).toBe(2); // served by 0, trained from 2

      const promoted = await promotePolicyVersion(ADMIN, { experimentId: exp, version: 3 });
      expect(promoted.active.version).toBe(3);
      const toBase = await rollbackPolicyVersion(ADMIN, { experimentId: exp, toVersion: 0 });
      expect(toBase.active).toEqual({ version: 0, checkpointPath: base });
      await expect(rollbackPolicyVersion(ADMIN, { experimentId: exp })).rejects.toThrow(/nothing to roll back/);
      await new Promise((r) => setTimeout(r, 200)); // let the subscriber drain
      expect(versions.messages.filter((m) => m.experimentId === exp)).toEqual([
        { experimentId: exp, version: 2, checkpointPath: rows[1].checkpointPath },
        { experimentId: exp, version: 4, checkpointPath: expect.any(String) },
        { experimentId: exp, version: 3, checkpointPath: rows[2].checkpointPath },
        { experimentId: exp, version: 0, checkpointPath: base },
      ]);
      const final = await db().policyVersion.findMany({ where: { experimentId: exp }, orderBy: { version: "asc" } });
      expect(final.map((r) => r.status)).toEqual(["RETIRED", "RETIRED", "ROLLED_BACK", "RETIRED"]);
    } finally {
      await versions.close();
    }
  });

  it("a step whose parent was superseded meanwhile is kept as a CANDIDATE, not served", async () => {
    const { id: exp } = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: base },
      hyper: { ...ONE_PASS, batchSize: 1, lr: 1e-3 },
    });
    const runId = (await makeRun(exp)).id;
    await judgedTurn(exp, runId, 1);
    expect((await trainer.tick(runId)).step).toMatchObject({ version: 1, outcome: "ACTIVE" });
    await judgedTurn(exp, runId, 1);
    // The trainer reads ACTIVE = 1 and trains; an operator rolls back between that read and the commit.
    const racing = new Trainer({
      dataDir,
      fillEveryMs: 0,
      beforeCommit: async ({ parentVersion }) => {
        expect(parentVersion).toBe(1);
        await rollbackPolicyVersion(ADMIN, { experimentId: exp });
      },
    });
    try {
      const r = await racing.tick(runId);
      expect(r.step).toMatchObject({ version: 2, outcome: "CANDIDATE" });
    } finally {
      racing.close();
    }
    // Version 2 trained from the superseded version 1: kept, never served; the rollback's choice (0) stays live.
    const rows = await db().policyVersion.findMany({ where: { experimentId: exp }, orderBy: { version: "asc" } });
    expect(rows.map((v) => [v.version, v.parentVersion, v.status])).toEqual([
      [1, 0, "ROLLED_BACK"],
      [2, 1, "CANDIDATE"],
    ]);
  });
});

describe("run states", () => {
  it("paused runs collect but do not step; stopped runs stop", async () => {
    const { id: exp } = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: base },
      hyper: { ...ONE_PASS, batchSize: 2, lr: 1e-3 },
    });
    const runId = (await makeRun(exp, { status: "PAUSED" })).id;
    await judgedTurn(exp, runId, 1);
    await judgedTurn(exp, runId, 1);
    expect(await trainer.tick(runId)).toEqual({ fill: { ready: 2, needed: 2 }, step: null });
    await db().run.update({ where: { id: runId }, data: { status: "RUNNING" } });
    expect((await trainer.tick(runId)).step).toMatchObject({ step: 1 });
    await judgedTurn(exp, runId, 1);
    await judgedTurn(exp, runId, 1);
    await db().run.update({ where: { id: runId }, data: { status: "KILLED", endedAt: new Date() } });
    expect(await trainer.tick(runId)).toEqual({ fill: null, step: null });
    expect(trainer.runIds).not.toContain(runId);
    expect(await db().trainingStep.count({ where: { runId } })).toBe(1);
  });
});

describe("losses through the loop", () => {
  it("combine: a reviewer's hint is scored by the frozen teacher; RL-only samples get w_rl·r", async () => {
    const hint = "Ask which days are free before planning.";
    const { id: exp } = await makeExperiment({
      method: "combine",
      policy: { kind: "embedded", checkpoint: base },
      hyper: { batchSize: 2, lr: 1e-3, wRl: 0.5, opdEstimator: "sampled", advClamp: 0.01, normalizeAdvantages: false },
    });
    const runId = (await makeRun(exp)).id;
    const rl = await judgedTurn(exp, runId, 1); // no hint: RL-only
    const hinted = await ask(exp, runId);
    const j = (await makeJudgment(hinted.turnId, { score: 1 })).id;
    await label(hinted.turnId, "REVIEWER", -1, { hint });
    // The teacher: the frozen base scoring the reply under the request with the hint appended.
    const turn = await db().turn.findUniqueOrThrow({ where: { id: hinted.turnId } });
    const baseModel = (await loadCheckpoint(base)).model;
    const teacher = scoreResponse(
      baseModel,
      hintedPromptIds(await reassembleMessages(turn), undefined, hint, baseModel.config.ctx - turn.tokenIds.length)!,
      turn.tokenIds,
    );
    disposeModel(baseModel);
    const r = await trainer.tick(runId);
    expect(r.step).toMatchObject({ step: 1, outcome: "ACTIVE" });
    const record = StepRecordSchema.parse(
      (await db().trainingStep.findUniqueOrThrow({ where: { runId_step: { runId, step: 1 } } })).metrics,
    );
    const byTurn = new Map(record.trace.map((t) => [t.turnId, t]));
    expect(byTurn.get(rl.turnId)).toMatchObject({ kind: "RL", reward: 1, teacher: "none" });
    expect(byTurn.get(hinted.turnId)).toMatchObject({
      kind: "BOTH",
      reward: -1,
      teacher: "rescored",
      labelSource: "REVIEWER",
      judgmentId: j,
    });
    expect(record.values).toMatchObject({ "samples/rl_only": 1, "samples/both": 1 });
    // Fresh samples (current = behaviour, ratio 1): pg = −mean_i mean_t A_it, with A = w_rl·r = 0.5 on the
    // RL-only sample and A_t = clamp(teacher_t − π_t, ±0.01) + 0.5·(−1) on the hinted one.
    const clamp = (x: number) => Math.max(-0.01, Math.min(0.01, x));
    const hintedAdv = mean(teacher.map((t, k) => clamp(t - hinted.served.logprobs[k]) - 0.5));
    expect(teacher.some((t, k) => Math.abs(t - hinted.served.logprobs[k]) > 0.01)).toBe(true); // the clamp is exercised
    expect(record.values["train/pg_loss"]).toBeCloseTo(-(0.5 + hintedAdv) / 2, 4);
    expect(record.values["train/loss"]).toBeCloseTo(-(0.5 + hintedAdv) / 2, 4);
  });

  it("a custom loss module replaces the PPO surrogate (examples/custom-loss.ts, CISPO)", async () => {
    const { id: exp } = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: base },
      hyper: { ...ONE_PASS, batchSize: 2, lr: 1e-3, normalizeAdvantages: false },
      customLossPath: "custom-loss.ts",
    });
    const runId = (await makeRun(exp)).id;
    const a = await judgedTurn(exp, runId, 1);
    const b = await judgedTurn(exp, runId, -1);
    const r = await trainer.tick(runId);
    // Fresh samples: ratio 1, so CISPO = −mean_i( r_i · mean_t log π ), with log π the behaviour log-probs.
    const expected = -mean([mean(a.served.logprobs), -mean(b.served.logprobs)]);
    expect(r.step?.metrics["train/pg_loss"]).toBeCloseTo(expected, 4);
    expect(r.step?.metrics["train/loss"]).toBeCloseTo(expected, 4);
  });

  it("stale samples: importance-weighted by min(1, exp(mean(current − behaviour))) with the ratio to the current policy", async () => {
    const { id: exp } = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: base },
      hyper: {
        ...ONE_PASS,
        batchSize: 2,
        lr: 1e-2,
        maxStaleness: 0,
        stalePolicy: "importance-weight",
        normalizeAdvantages: false,
      },
    });
    const runId = (await makeRun(exp)).id;
    await judgedTurn(exp, runId, 1);
    await judgedTurn(exp, runId, -1);
    const first = await trainer.tick(runId);
    expect(first.step).toMatchObject({ version: 1 });
    // Two more turns served by version 0 (one version stale now).
    const s1 = await judgedTurn(exp, runId, 1);
    const s2 = await judgedTurn(exp, runId, -1);
    const v1 = (await loadCheckpoint(first.step!.checkpointPath)).model;
    const expectedWeights = await Promise.all(
      [s1, s2].map(async (t) => {
        const turn = await db().turn.findUniqueOrThrow({ where: { id: t.turnId } });
        const prompt = servedPromptIds(await reassembleMessages(turn), undefined, turn.promptTokens)!;
        const current = scoreResponse(v1, prompt, turn.tokenIds);
        return Math.min(1, Math.exp(mean(current.map((x, i) => x - turn.logprobs[i]))));
      }),
    );
    disposeModel(v1);
    expect(Math.min(...expectedWeights)).toBeLessThan(1); // the case exercises a real down-weighting
    const r = await trainer.tick(runId);
    expect(r.step).toMatchObject({ step: 2, version: 2 });
    const record = StepRecordSchema.parse(
      (await db().trainingStep.findUniqueOrThrow({ where: { runId_step: { runId, step: 2 } } })).metrics,
    );
    const byTurn = new Map(record.trace.map((t) => [t.turnId, t]));
    expect(byTurn.get(s1.turnId)!.staleness).toBe(1);
    expect(byTurn.get(s1.turnId)!.weight).toBeCloseTo(expectedWeights[0], 4);
    expect(byTurn.get(s2.turnId)!.weight).toBeCloseTo(expectedWeights[1], 4);
    // The ratio is to the current policy: nothing is clipped and the surrogate is −Σ w_i r_i / N.
    expect(record.values["train/pg_clipfrac"]).toBe(0);
    expect(record.values["train/pg_loss"]).toBeCloseTo(-(expectedWeights[0] - expectedWeights[1]) / 2, 4);
  });

  it("combine with importance-weighted stale samples: RL-only samples have no OPD term", async () => {
    const { id: exp } = await makeExperiment({
      method: "combine",
      policy: { kind: "embedded", checkpoint: base },
      hyper: {
        batchSize: 2,
        lr: 1e-2,
        maxStaleness: 0,
        stalePolicy: "importance-weight",
        opdEstimator: "sampled",
        normalizeAdvantages: false,
      },
    });
    const runId = (await makeRun(exp)).id;
    await judgedTurn(exp, runId, 1);
    await judgedTurn(exp, runId, -1);
    const first = await trainer.tick(runId);
    expect(first.step).toMatchObject({ version: 1 });
    const s1 = await judgedTurn(exp, runId, 1); // served by version 0: one version stale
    const s2 = await judgedTurn(exp, runId, -1);
    const v1 = (await loadCheckpoint(first.step!.checkpointPath)).model;
    const gaps = await Promise.all(
      [s1, s2].map(async (t) => {
        const turn = await db().turn.findUniqueOrThrow({ where: { id: t.turnId } });
        const current = scoreResponse(
          v1,
          servedPromptIds(await reassembleMessages(turn), undefined, turn.promptTokens)!,
          turn.tokenIds,
        );
        return mean(current.map((x, i) => turn.logprobs[i] - x)); // mean_t(behaviour − current)
      }),
    );
    disposeModel(v1);
    const r = await trainer.tick(runId);
    expect(r.step).toMatchObject({ step: 2 });
    const record = StepRecordSchema.parse(
      (await db().trainingStep.findUniqueOrThrow({ where: { runId_step: { runId, step: 2 } } })).metrics,
    );
    const byTurn = new Map(record.trace.map((t) => [t.turnId, t]));
    const [w1, w2] = [byTurn.get(s1.turnId)!.weight, byTurn.get(s2.turnId)!.weight];
    // The ratio is to the current policy and the advantage is w_rl·r alone: −Σ w_i r_i / N. With the behaviour
    // log-probs as "teacher" (the reference), the OPD term behaviour − current would add −Σ w_i·gap_i / N.
    const withBehaviourTeacher = -(w1 * (1 + gaps[0]) + w2 * (-1 + gaps[1])) / 2;
    expect(Math.abs(withBehaviourTeacher - -(w1 - w2) / 2)).toBeGreaterThan(1e-3); // the case tells them apart
    expect(record.values["train/pg_loss"]).toBeCloseTo(-(w1 - w2) / 2, 5);
  });
  it("the full-vocabulary OPD estimator: reverse KL to the hinted base at every response position, no PG term", async () => {
    const hint = "Keep the plan to three bullet points.";
    const { id: exp } = await makeExperiment({
      method: "opd",
      policy: { kind: "embedded", checkpoint: base },
      hyper: { batchSize: 1, lr: 1e-3, opdEstimator: "full", teacherSource: "base" },
    });
    const runId = (await makeRun(exp)).id;
    const t = await ask(exp, runId);
    await makeJudgment(t.turnId, {
      score: -1,
      hint,
      hintAccepted: true,
      teacherLogprobs: t.served.logprobs.map(() => -1),
      dispatch: "OPD",
    });
    const turn = await db().turn.findUniqueOrThrow({ where: { id: t.turnId } });
    const messages = await reassembleMessages(turn);
    // Student = the base (version 0) on the served prompt; teacher = the base on the hinted prompt.
    const model = (await loadCheckpoint(base)).model;
    const dist = (prompt: number[]) => {
      const batch = packBatch([{ promptIds: prompt, responseIds: turn.tokenIds }], model.config.ctx);
      const V = model.config.vocabSize;
      const flat = tf.tidy(() =>
        tokenLogprobs(
          forward(model.config, model.params, tf.tensor2d(batch.ids, [1, batch.T], "int32")),
          batch,
          false,
          true,
        ).vocab!.dataSync(),
      );
      return turn.tokenIds.map((_, j) =>
        Array.from(flat.subarray((batch.spans[0]!.start + j) * V, (batch.spans[0]!.start + j + 1) * V)),
      );
    };
    const student = dist(servedPromptIds(messages, undefined, turn.promptTokens)!);
    const teacher = dist(hintedPromptIds(messages, undefined, hint, model.config.ctx - turn.tokenIds.length)!);
    disposeModel(model);
    const kl = mean(student.map((s, j) => s.reduce((a, lp, v) => a + Math.exp(lp) * (lp - teacher[j]![v]!), 0)));
    expect(kl).toBeGreaterThan(1e-4);

    const r = await trainer.tick(runId);
    const record = StepRecordSchema.parse(
      (await db().trainingStep.findUniqueOrThrow({ where: { runId_step: { runId, step: r.step!.step } } })).metrics,
    );
    expect(record.trace[0]).toMatchObject({ kind: "OPD", teacher: "step" });
    expect(record.values["train/distill_kl"]).toBeCloseTo(kl, 4);
    expect(record.values["train/pg_loss"]).toBeCloseTo(0, 6); // the OPD term is the distillation loss, not an advantage
    expect(record.values["train/loss"]).toBeCloseTo(kl, 4);
  });

  it("hint selection sequence_optimal: distils toward the judge's candidate whose top-K overlaps the student's most", async () => {
    // The judge's accepted hints, shortest first: candidate 0 is what `shortest` would train on.
    const hints = ["Answer with one short sentence.", "Reply in French, and keep it to a single line of text."];
    const topK = 2;
    const { id: exp } = await makeExperiment({
      method: "opd",
      policy: { kind: "embedded", checkpoint: base },
      judge: { hintSelection: "sequence_optimal" },
      hyper: { batchSize: 1, lr: 1e-3, opdEstimator: "full", teacherSource: "base", topK },
    });
    const runId = (await makeRun(exp)).id;
    const t = await ask(exp, runId);
    const j = await makeJudgment(t.turnId, {
      score: -1,
      hint: hints[0],
      hintAccepted: true,
      teacherLogprobs: t.served.logprobs.map(() => -1),
      dispatch: "OPD",
    });
    for (const [index, hint] of [hints[1], hints[0]].entries())
      await db().judgeVote.create({ data: { judgmentId: j.id, kind: "hint", index, raw: hint, value: 1, hint } });
    const turn = await db().turn.findUniqueOrThrow({ where: { id: t.turnId } });
    const messages = await reassembleMessages(turn);
    const model = (await loadCheckpoint(base)).model;
    const dist = (prompt: number[]) => {
      const batch = packBatch([{ promptIds: prompt, responseIds: turn.tokenIds }], model.config.ctx);
      const V = model.config.vocabSize;
      const flat = tf.tidy(() =>
        tokenLogprobs(
          forward(model.config, model.params, tf.tensor2d(batch.ids, [1, batch.T], "int32")),
          batch,
          false,
          true,
        ).vocab!.dataSync(),
      );
      return turn.tokenIds.map((_, j) =>
        Array.from(flat.subarray((batch.spans[0]!.start + j) * V, (batch.spans[0]!.start + j + 1) * V)),
      );
    };
    const hinted = hints.map((h) => hintedPromptIds(messages, undefined, h, model.config.ctx - turn.tokenIds.length)!);
    // The batch carries every candidate's hinted prompt, in the judge's order (shortest first).
    const config = ExperimentConfigSchema.parse(
      (await db().experiment.findUniqueOrThrow({ where: { id: exp } })).config,
    );
    const built = await buildBatch([{ id: "sample", turnId: t.turnId }], {
      runId,
      config,
      currentVersion: 0,
      model,
      teacher: () => {
        throw new Error("the judge's hint needs no rescoring");
      },
    });
    expect(built.samples[0]).toMatchObject({ teacherPromptIds: hinted[0], teacherPromptCandidates: hinted });

    const student = dist(servedPromptIds(messages, undefined, turn.promptTokens)!);
    const teachers = hinted.map(dist);
    disposeModel(model);
    const kl = (teacher: number[][]) =>
      mean(student.map((s, j) => s.reduce((a, lp, v) => a + Math.exp(lp) * (lp - teacher[j]![v]!), 0)));
    const [k] = selectCandidatePerToken(
      overlapCounts(
        student.map((s) => topKIndices(s, topK)),
        teachers.map((tc) => tc.map((d) => topKIndices(d, topK))),
      ),
      "sequence_optimal",
    );

    // End to end: the step distils toward the chosen candidate. (This tiny base barely tells the two hints apart, so
    // the choice itself is checked on distinct teachers in tests/unit/engine/hintSelection.test.ts.)
    const r = await trainer.tick(runId);
    const record = StepRecordSchema.parse(
      (await db().trainingStep.findUniqueOrThrow({ where: { runId_step: { runId, step: r.step!.step } } })).metrics,
    );
    expect(record.values["train/distill_kl"]).toBeCloseTo(kl(teachers[k!]!), 4);
  });
});
