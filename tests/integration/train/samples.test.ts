// collectSamples / batchFill against the database: which turns of a run become samples, label precedence,
// each method's dispatch, exclusions kept with their reason, staleness, idempotency and refresh.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { db } from "../../../server/platform/db/client";
import { batchFill, collectSamples } from "../../../server/training/samples";
import type { EmbeddedUpstream } from "../../../server/proxy/upstreams/embedded";
import { makeJudgment } from "../../helpers/judgments";
import { label, serveTurn, upstreamFor, type ServeSpec } from "./helpers";
import { makeBaseCheckpoint } from "../../../bench/lib/baseCheckpoint";
import { isolateDataDir, isolateRedis } from "../../helpers/isolate";
import { makeExperiment, makeRun } from "../../helpers/fixtures";

isolateRedis("train-samples");
let dataDir = "";
let base = "";
let upstream: EmbeddedUpstream;
let seed = 0;

beforeAll(async () => {
  dataDir = await isolateDataDir("samples");
  base = await makeBaseCheckpoint(dataDir, 3);
  upstream = upstreamFor(base, 0);
});
afterAll(async () => {
  await upstream.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const ask = (experimentId: string, runId: string | null, over: Partial<ServeSpec> = {}) =>
  serveTurn(upstream, {
    experimentId,
    runId,
    messages: [{ role: "user", content: `question ${seed}` }],
    seed: ++seed,
    ...over,
  });

async function sampleOf(runId: string, turnId: string) {
  return db().sample.findUnique({ where: { runId_turnId: { runId, turnId } } });
}

describe("collectSamples (grpo)", () => {
  it("records judged main turns of the run, with label precedence, exclusions and idempotency", async () => {
    const { id: exp } = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: base },
      hyper: { batchSize: 3 },
    });
    const before = await ask(exp, null, { createdAt: new Date(Date.now() - 3600_000) }); // before the run existed
    await makeJudgment(before.turnId, { score: 1 });
    const runId = (await makeRun(exp)).id;

    const good = await ask(exp, runId);
    await makeJudgment(good.turnId, { score: 1 });
    const userSays = await ask(exp, runId);
    await makeJudgment(userSays.turnId, { score: 1 });
    await label(userSays.turnId, "USER", -1);
    const reviewerSays = await ask(exp, runId);
    await makeJudgment(reviewerSays.turnId, { score: -1 });
    await label(reviewerSays.turnId, "USER", -1);
    await label(reviewerSays.turnId, "REVIEWER", 1);
    const zero = await ask(exp, runId);
    await makeJudgment(zero.turnId, { score: 0 });
    const noNext = await ask(exp, runId, { next: null });
    await makeJudgment(noNext.turnId, { score: 1 });
    const reviewerExcluded = await ask(exp, runId);
    await makeJudgment(reviewerExcluded.turnId, { score: 1 });
    await label(reviewerExcluded.turnId, "REVIEWER", 1, { exclude: true });
    const unjudged = await ask(exp, runId);
    const humanOnly = await ask(exp, runId); // no judgment yet, but a user's thumbs-down
    await label(humanOnly.turnId, "USER", -1);
    // Unlinked turn recorded while the run was live: it belongs to the run too.
    const unlinked = await ask(exp, null);
    await makeJudgment(unlinked.turnId, { score: -1 });

    const first = await collectSamples(runId);
    expect(first).toMatchObject({ created: 8, updated: 0, currentVersion: 0 });
    expect(await sampleOf(runId, before.turnId)).toBeNull();
    expect(await sampleOf(runId, unjudged.turnId)).toBeNull();
    expect(await sampleOf(runId, good.turnId)).toMatchObject({
      kind: "RL",
      reward: 1,
      labelSource: "JUDGE",
      excluded: false,
      staleness: 0,
      stepId: null,
    });
    expect(await sampleOf(runId, userSays.turnId)).toMatchObject({ reward: -1, labelSource: "USER", excluded: false });
    expect(await sampleOf(runId, reviewerSays.turnId)).toMatchObject({
      reward: 1,
      labelSource: "REVIEWER",
      excluded: false,
    });
    expect(await sampleOf(runId, zero.turnId)).toMatchObject({ excluded: true, excludeReason: "zero_score" });
    expect(await sampleOf(runId, noNext.turnId)).toMatchObject({ excluded: true, excludeReason: "no_next_state" });
    expect(await sampleOf(runId, reviewerExcluded.turnId)).toMatchObject({
      excluded: true,
      excludeReason: "reviewer_excluded",
      labelSource: "REVIEWER",
    });
    expect(await sampleOf(runId, humanOnly.turnId)).toMatchObject({ reward: -1, labelSource: "USER", excluded: false });
    expect(await sampleOf(runId, unlinked.turnId)).toMatchObject({ reward: -1, excluded: false });
    expect(await batchFill(runId)).toEqual({ ready: 5, needed: 3 });

    // Idempotent: nothing new, nothing changed.
    expect(await collectSamples(runId)).toMatchObject({ created: 0, updated: 0 });
    expect(await db().sample.count({ where: { runId } })).toBe(8);

    // A reviewer relabel of an untrained sample changes it; a later judgment of an unjudged turn adds it.
    await label(zero.turnId, "REVIEWER", -1);
    await makeJudgment(unjudged.turnId, { score: -1 });
    expect(await collectSamples(runId, { since: first.watermark })).toMatchObject({ created: 1, updated: 1 });
    expect(await sampleOf(runId, zero.turnId)).toMatchObject({
      reward: -1,
      labelSource: "REVIEWER",
      excluded: false,
      excludeReason: null,
    });
    expect(await batchFill(runId)).toEqual({ ready: 7, needed: 3 });

    // A trained sample is frozen: a relabel no longer touches it.
    const step = await db().trainingStep.create({ data: { runId, step: 1, policyVersion: 1 } });
    await db().sample.update({ where: { runId_turnId: { runId, turnId: good.turnId } }, data: { stepId: step.id } });
    await label(good.turnId, "REVIEWER", -1);
    await collectSamples(runId);
    expect(await sampleOf(runId, good.turnId)).toMatchObject({ reward: 1, labelSource: "JUDGE", stepId: step.id });
  });

  it("ignores side and failed turns, and other runs' turns", async () => {
    const { id: exp } = await makeExperiment({ method: "grpo", policy: { kind: "embedded", checkpoint: base } });
    const runId = (await makeRun(exp)).id;
    const side = await ask(exp, runId);
    await db().turn.update({ where: { id: side.turnId }, data: { turnType: "SIDE" } });
    const failed = await ask(exp, runId);
    await db().turn.update({ where: { id: failed.turnId }, data: { status: "FAILED" } });
    for (const t of [side, failed]) await makeJudgment(t.turnId, { score: 1 });
    const { id: other } = await makeExperiment({ method: "grpo", policy: { kind: "embedded", checkpoint: base } });
    const elsewhere = await ask(other, null);
    await makeJudgment(elsewhere.turnId, { score: 1 });
    expect(await collectSamples(runId)).toMatchObject({ created: 0 });
  });
});

describe("collectSamples (opd / combine)", () => {
  it("opd needs teacher log-probs; combine dispatches BOTH / OPD / RL with the judgment's reward", async () => {
    const { id: opdExp } = await makeExperiment({ method: "opd", policy: { kind: "embedded", checkpoint: base } });
    const opdRun = (await makeRun(opdExp)).id;
    const withHint = await ask(opdExp, opdRun);
    await makeJudgment(withHint.turnId, {
      score: 1,
      hint: "Be brief and answer directly.",
      hintAccepted: true,
      teacherLogprobs: withHint.served.logprobs.map((x) => x + 0.1),
    });
    const noHint = await ask(opdExp, opdRun);
    await makeJudgment(noHint.turnId, { score: 1 });
    await collectSamples(opdRun);
    expect(await sampleOf(opdRun, withHint.turnId)).toMatchObject({ kind: "OPD", reward: 0, excluded: false });
    expect(await sampleOf(opdRun, noHint.turnId)).toMatchObject({
      kind: "OPD",
      excluded: true,
      excludeReason: "no_valid_hint",
    });

    const { id: exp } = await makeExperiment({ method: "combine", policy: { kind: "embedded", checkpoint: base } });
    const runId = (await makeRun(exp)).id;
    const both = await ask(exp, runId);
    await makeJudgment(both.turnId, {
      score: -1,
      hint: "Ask which city first.",
      hintAccepted: true,
      teacherLogprobs: both.served.logprobs,
    });
    const opdOnly = await ask(exp, runId);
    await makeJudgment(opdOnly.turnId, {
      score: 0,
      hint: "Ask which city first.",
      hintAccepted: true,
      teacherLogprobs: opdOnly.served.logprobs,
    });
    const rlOnly = await ask(exp, runId);
    await makeJudgment(rlOnly.turnId, { score: 1 });
    const none = await ask(exp, runId);
    await makeJudgment(none.turnId, { score: 0 });
    const badTeacher = await ask(exp, runId);
    await makeJudgment(badTeacher.turnId, {
      score: 1,
      hint: "Ask which city first.",
      hintAccepted: true,
      teacherLogprobs: [-1],
    });
    await collectSamples(runId);
    expect(await sampleOf(runId, both.turnId)).toMatchObject({ kind: "BOTH", reward: -1, excluded: false });
    expect(await sampleOf(runId, opdOnly.turnId)).toMatchObject({ kind: "OPD", reward: 0, excluded: false });
    expect(await sampleOf(runId, rlOnly.turnId)).toMatchObject({ kind: "RL", reward: 1, excluded: false });
    expect(await sampleOf(runId, none.turnId)).toMatchObject({
      kind: "BOTH",
      excluded: true,
      excludeReason: "no_hint_and_zero_eval",
    });
    expect(await sampleOf(runId, badTeacher.turnId)).toMatchObject({
      kind: "BOTH",
      excluded: true,
      excludeReason: "teacher_length_mismatch",
    });
  });
});

describe("staleness", () => {
  it("measures it against the ACTIVE version; drops or keeps stale samples by policy, and re-decides when the version moves", async () => {
    const drop = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: base },
      hyper: { maxStaleness: 1, stalePolicy: "drop" },
    });
    const weigh = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: base },
      hyper: { maxStaleness: 1, stalePolicy: "importance-weight" },
    });
    for (const { id: exp } of [drop, weigh]) {
      const runId = (await makeRun(exp)).id;
      const t = await ask(exp, runId); // served by version 0
      await makeJudgment(t.turnId, { score: 1 });
      await collectSamples(runId);
      expect(await sampleOf(runId, t.turnId)).toMatchObject({ staleness: 0, excluded: false });
      // The experiment moves on to version 2 (two steps later).
      await db().policyVersion.create({
        data: { experimentId: exp, version: 2, status: "ACTIVE", checkpointPath: base },
      });
      await collectSamples(runId);
      const s = await sampleOf(runId, t.turnId);
      if (exp === drop.id) expect(s).toMatchObject({ staleness: 2, excluded: true, excludeReason: "stale" });
      else expect(s).toMatchObject({ staleness: 2, excluded: false });
      // Rolled back to the base: version 0 again, fresh again.
      await db().policyVersion.updateMany({ where: { experimentId: exp }, data: { status: "ROLLED_BACK" } });
      await collectSamples(runId);
      expect(await sampleOf(runId, t.turnId)).toMatchObject({ staleness: 0, excluded: false, excludeReason: null });
    }
  });
});
