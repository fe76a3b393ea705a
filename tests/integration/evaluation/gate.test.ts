// The promotion gate end to end on the real engine: versions trained for real (fine-tuned toward Leo's hidden
// preference on his training questions, then GRPO against it with a huge learning rate), committed by the trainer's own commitStep under
// gated promotion (so they start as candidates), evaluated on the held-out persona set through the proxy's
// upstream factory, then gated: the better one is promoted (audited, announced), the worse one is held
// back with its reason while the served version stays.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { initBackend } from "../../../server/engine/backend";
import { loadCheckpoint } from "../../../server/engine/checkpoint";
import { generateBatch } from "../../../server/engine/generate";
import { disposeModel, type PolicyModel } from "../../../server/engine/model";
import { Adam } from "../../../server/engine/optimizer";
import { trainStep } from "../../../server/engine/train";
import { renderChat } from "../../../server/engine/tokenizer";
import { commitStep, GATE_AWAITING } from "../../../server/training/commit";
import { createPersonaEvalSet } from "../../../server/evaluation/service";
import { evaluateVersion } from "../../../server/evaluation/runner";
import { applyGate } from "../../../server/evaluation/gate";
import { ExperimentConfigSchema } from "../../../server/config/experimentConfig";
import { checkReply } from "../../../server/simulation/grader";
import { getPersona, questionsFor, renderReply } from "../../../server/simulation/personas";
import { checkpoint, collect, fineTune } from "./helpers";
import { isolateDataDir, isolateRedis } from "../../helpers/isolate";
import { makeExperiment, makeRun } from "../../helpers/fixtures";

isolateRedis("eval-gate");
const leo = getPersona("leo");

/** GRPO on Leo's training questions against his preference: reward +1 for anything but an on-topic bullet list. */
async function trainAgainst(model: PolicyModel, opts: { lr: number; steps: number }) {
  const adam = new Adam({ lr: opts.lr });
  const questions = questionsFor(leo).slice(0, 8);
  const prompts = questions.map((q) => renderChat([{ role: "user", content: q.text }], { addGenerationPrompt: true }));
  for (let it = 0; it < opts.steps; it++) {
    // A group of 4 replies per prompt: with 2, the committed base's 16% bullet rate gives too few positives to learn from.
    const gens = await generateBatch(
      model,
      prompts.flatMap((p) => [p, p, p, p]),
      { maxTokens: 64, temperature: 1, seed: 100 + it },
    );
    // Rewards centred on the batch mean (a group baseline): with a base that rarely writes bullets unprompted,
    // uncentred ±1 rewards are almost all −1 and mostly push the sampled tokens down rather than bullets up.
    const rewards = gens.map((g, i) => -(checkReply(leo, questions[Math.floor(i / 4)]!, g.text).ok ? 1 : -1));
    const baseline = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    const samples = gens.map((g, i) => ({
      promptIds: g.promptIds,
      responseIds: g.tokenIds,
      oldLogprobs: g.logprobs,
      reward: rewards[i]! - baseline,
      kind: "RL" as const,
    }));
    await trainStep(model, adam, samples, { microBatchSize: 8 });
  }
  adam.dispose();
}

describe("gated promotion", () => {
  let dir: string;
  beforeAll(async () => {
    await initBackend();
    dir = await isolateDataDir("gate");
  });
  afterAll(() => db().$disconnect());

  it("promotes a version trained toward the preference and holds back one trained against it", async () => {
    const e = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: "models/base" },
      serving: { promotion: "gated", gate: { tolerance: 0.05 }, maxTokens: 96 },
      evaluation: { enabled: true, k: 2, temperature: 0.7, seed: 1, maxTokens: 96 },
    });
    const runId = (await makeRun(e.id)).id;
    const set = await createPersonaEvalSet(null, { experimentId: e.id, name: "held-out personas", personas: ["leo"] });
    const announced = await collect("policyVersion", e.id);

    const commit = async (version: number, parentVersion: number, ckpt: string) =>
      commitStep({
        runId,
        experimentId: e.id,
        step: version,
        version,
        parentVersion,
        checkpointPath: ckpt,
        checkpointSha: "test",
        bytes: 0,
        decisions: new Map(),
        record: { values: {}, trace: [], parentVersion },
        durationMs: 1,
        points: [],
      });

    const base = await evaluateVersion(e.id, 0, set.setVersionId);
    expect(base?.status).toBe("DONE");

    // v1: fine-tuned toward bullet lists of each training question's facts (persona-v2 grades style and content;
    // eight GRPO steps toward that reward from the base's few positives left it at 0).
    const better = (await loadCheckpoint("models/base")).model;
    await fineTune(better, leo, (q) => renderReply(q, "bullets"), 12);
    const v1Path = await checkpoint(dir, "v1", better, 1);
    expect((await commit(1, 0, v1Path)).status).toBe("CANDIDATE");
    expect((await db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, version: 1 } })).gateReason).toBe(
      GATE_AWAITING,
    );

    const ev1 = await evaluateVersion(e.id, 1, set.setVersionId);
    expect(ev1!.mean!, `v0 ${base!.mean} → v1 ${ev1!.mean}`).toBeGreaterThan(base!.mean! + 0.25);
    const v1 = await db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, version: 1 } });
    expect(v1.status).toBe("ACTIVE");
    expect(v1.gateReason).toBeNull();
    const promoteAudit = await db().auditLog.findFirstOrThrow({
      where: { resourceId: e.id, action: "policyVersion.gatePromote" },
    });
    expect(promoteAudit.after).toMatchObject({ activeVersion: 1, reason: expect.stringMatching(/≥ served v0's/) });

    // v2: from v1, against the preference with a learning rate 17× the demo's.
    const worse = (await loadCheckpoint(v1Path)).model;
    await trainAgainst(worse, { lr: 0.05, steps: 3 });
    const v2Path = await checkpoint(dir, "v2", worse, 2);
    expect((await commit(2, 1, v2Path)).status).toBe("CANDIDATE");
    const ev2 = await evaluateVersion(e.id, 2, set.setVersionId);
    expect(ev2!.mean!, `v1 ${ev1!.mean} → v2 ${ev2!.mean}`).toBeLessThan(ev1!.mean! - 0.05);
    const v2 = await db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, version: 2 } });
    expect(v2.status).toBe("CANDIDATE");
    expect(v2.gateReason).toMatch(/^eval \d\.\d{3} < served v1's \d\.\d{3} − tolerance 0\.050$/);
    expect(
      (await db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, status: "ACTIVE" } })).version,
    ).toBe(1);
    const holdAudit = await db().auditLog.findFirstOrThrow({
      where: { resourceId: e.id, action: "policyVersion.gateHold" },
    });
    expect(holdAudit.after).toMatchObject({ version: 2, gateReason: v2.gateReason, servedVersion: 1 });

    // Every reply is stored with its seed, grader and version; cost is recorded.
    const scores = await db().evalScore.findMany({ where: { evaluationId: ev2!.id } });
    expect(scores).toHaveLength(set.items * 2);
    expect(new Set(scores.map((s) => `${s.grader}/${s.graderVersion}`))).toEqual(new Set(["persona/persona-v2"]));
    expect(ev2!.replyTokens).toBeGreaterThan(0);
    // Same prompts, same seeds for every version: the comparison is paired.
    const seeds = async (id: string) =>
      (
        await db().evalScore.findMany({ where: { evaluationId: id }, orderBy: [{ itemId: "asc" }, { sample: "asc" }] })
      ).map((s) => s.seed);
    expect(await seeds(ev1!.id)).toEqual(await seeds(ev2!.id));

    await announced.stop();
    expect(announced.seen.map((m) => m.version)).toEqual([1]);
    expect(path.resolve(announced.seen[0]!.checkpointPath!)).toBe(path.resolve(v1Path));
    disposeModel(better);
    disposeModel(worse);
  }, 240_000);

  it("with serving.gate.confirm, compares the winner and the served version again on fresh seeds before promoting", async () => {
    const e = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: "models/base" },
      serving: { promotion: "gated", gate: { tolerance: 0.05, confirm: true }, maxTokens: 96 },
      evaluation: { enabled: true, k: 2, temperature: 0.7, seed: 1, maxTokens: 96 },
    });
    const runId = (await makeRun(e.id)).id;
    const set = await createPersonaEvalSet(null, { experimentId: e.id, name: "held-out personas", personas: ["leo"] });
    await evaluateVersion(e.id, 0, set.setVersionId);
    const better = (await loadCheckpoint("models/base")).model;
    await fineTune(better, leo, (q) => renderReply(q, "bullets"), 12);
    const v1Path = await checkpoint(dir, "confirm-v1", better, 1);
    disposeModel(better);
    await commitStep({
      runId,
      experimentId: e.id,
      step: 1,
      version: 1,
      parentVersion: 0,
      checkpointPath: v1Path,
      checkpointSha: "test",
      bytes: 0,
      decisions: new Map(),
      record: { values: {}, trace: [], parentVersion: 0 },
      durationMs: 1,
      points: [],
    });
    const v1 = () => db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, version: 1 } });

    // It wins on the common seeds: not promoted yet, waiting for the fresh pair (it and the served base on draw 1).
    const selected = await evaluateVersion(e.id, 1, set.setVersionId);
    expect((await v1()).status).toBe("CANDIDATE");
    expect((await v1()).gateReason).toMatch(/^passed \(eval .*\); awaiting its confirmation on fresh seeds$/);
    const waiting = await applyGate(e.id, ExperimentConfigSchema.parse(e.config), set.setVersionId);
    expect([waiting.promoted, waiting.due]).toEqual([
      null,
      [
        { version: 1, draw: 1 },
        { version: 0, draw: 1 },
      ],
    ]);

    // The fresh draw: other seeds than the common ones, the same for both versions (paired); it passes there.
    const fresh = await evaluateVersion(e.id, 1, set.setVersionId, {}, 1);
    expect(fresh!.draw).toBe(1);
    expect((await v1()).status).toBe("CANDIDATE"); // the served base's fresh score is still missing
    const baseFresh = await evaluateVersion(e.id, 0, set.setVersionId, {}, 1);
    const seeds = async (id: string) =>
      (
        await db().evalScore.findMany({ where: { evaluationId: id }, orderBy: [{ itemId: "asc" }, { sample: "asc" }] })
      ).map((x) => x.seed);
    const common = new Set(await seeds(selected!.id));
    expect(await seeds(fresh!.id)).toHaveLength(set.items * 2);
    expect((await seeds(fresh!.id)).some((x) => common.has(x))).toBe(false);
    expect(await seeds(baseFresh!.id)).toEqual(await seeds(fresh!.id));
    expect([(await v1()).status, (await v1()).gateDraw]).toEqual(["ACTIVE", 1]);
    const promoteAudit = await db().auditLog.findFirstOrThrow({
      where: { resourceId: e.id, action: "policyVersion.gatePromote" },
    });
    expect(promoteAudit.after).toMatchObject({
      activeVersion: 1,
      reason: expect.stringMatching(
        /^eval on fresh seeds \d\.\d{3} ≥ served v0's on fresh seeds .* \(selected on eval /,
      ),
    });
  }, 240_000);

  it("stops at the per-version budget and records a partial evaluation", async () => {
    const e = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: "models/base" },
      evaluation: { enabled: true, k: 2, maxTokens: 32, budget: { maxReplyTokens: 40, maxSeconds: 600 } },
    });
    const set = await createPersonaEvalSet(null, { experimentId: e.id, name: "held-out personas", personas: ["leo"] });
    const ev = await evaluateVersion(e.id, 0, set.setVersionId);
    expect(ev!.status).toBe("PARTIAL");
    expect(ev!.replies).toBeLessThan(set.items * 2);
    // the reply that crossed the bound is kept; nothing is generated after it
    expect(ev!.replyTokens).toBeGreaterThanOrEqual(40);
    expect(ev!.replyTokens).toBeLessThan(40 + 32);
  }, 120_000);
});
