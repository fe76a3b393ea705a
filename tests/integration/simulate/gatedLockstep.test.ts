// The loop in lockstep under gated promotion (bench/learning --gateK; bench/lib/gate.ts): each step's version is a
// CANDIDATE, evaluated on the persona's training questions and gated by the product's own gate before the next
// conversation. A held-back candidate is never served and never trained on: the next step starts from the version
// served. The gate's outcome is forced both ways by its settings (a floor no version reaches, a tolerance every
// version passes), so the test does not depend on how much two steps learn.
import { describe, expect, it } from "vitest";
import path from "node:path";
import OpenAI from "openai";
import { db } from "../../../server/platform/db/client";
import { DEMO_EXPERIMENTS, DEMO_SIMULATION, demoConfig } from "../../../server/simulation/demo";
import type { ExperimentConfig } from "../../../server/config/experimentConfig";
import { lockstepExperiment, lockstepJudge, runLockstep } from "../../../bench/lib/lockstep";
import { gatedConfig, GATE_SET, trainingQuestionGate } from "../../../bench/lib/gate";
import { StepRecordSchema } from "../../../server/training/schemas";
import { makeKey, uniq, SEEDED_ROW } from "../../helpers/fixtures";
import { isolateRedis } from "../../helpers/isolate";
import { useTrainingLoop } from "../../helpers/trainingLoop";

isolateRedis("sim-gated");

const STEPS = 2;

const loop = useTrainingLoop("sim-gated");

/** The GRPO demo gated on Leo's training questions (one reply each) with `gate`, run STEPS steps in lockstep. */
async function gatedRun(gate: Partial<ExperimentConfig["serving"]["gate"]>) {
  const config = gatedConfig(demoConfig(DEMO_EXPERIMENTS.find((d) => d.slug === "demo-grpo")!), 1);
  config.policy = { kind: "embedded", checkpoint: path.resolve("models/base") };
  config.serving.gate = { ...config.serving.gate, ...gate };
  const { experiment: e, runId } = await lockstepExperiment(config, {
    slug: uniq("gated"),
    name: "gated lockstep test",
    description: SEEDED_ROW,
  });
  const judge = lockstepJudge(e.id, 60_000);
  loop.onClose(() => judge.close());
  const client = new OpenAI({
    apiKey: await makeKey(["proxy", "write", "identity"]),
    baseURL: `${loop.proxy.url}/v1`,
    maxRetries: 0,
  });
  const gated = await trainingQuestionGate(e.id, config, "leo");
  const steps = await runLockstep({
    experimentId: e.id,
    slug: e.slug,
    runId,
    proxy: loop.proxy,
    client,
    trainer: loop.trainer,
    settings: DEMO_SIMULATION,
    steps: STEPS,
    timeoutMs: 60_000,
    gate: gated.gate,
  });
  const records = await db().trainingStep.findMany({ where: { runId }, orderBy: { step: "asc" } });
  const versions = await db().policyVersion.findMany({ where: { experimentId: e.id }, orderBy: { version: "asc" } });
  const evaluations = await db().evaluation.findMany({
    where: { experimentId: e.id, setVersion: { set: { name: GATE_SET } } },
    orderBy: { policyVersion: "asc" },
  });
  return {
    e,
    steps,
    gated,
    versions,
    evaluations,
    parents: records.map((r) => StepRecordSchema.parse(r.metrics).parentVersion),
  };
}

describe("lockstep under gated promotion", () => {
  it("holds back every candidate below the gate's floor: the base stays served and every step trains from it", async () => {
    const { e, steps, gated, versions, evaluations, parents } = await gatedRun({ tolerance: 0.05, floor: 1 });
    expect(steps.map((s) => [s.version, s.served])).toEqual([
      [1, 0],
      [2, 0],
    ]);
    expect(loop.proxy.experiments.get(e.id)!.policyVersion).toBe(0);
    expect(parents).toEqual([0, 0]);
    expect(versions.map((v) => v.status)).toEqual(["CANDIDATE", "CANDIDATE"]);
    for (const v of [1, 2]) expect(gated.held(v)).toMatch(/is below the floor 1\.000/);
    // the base and both candidates were evaluated on the gate's set (Leo's training questions, one reply each)
    expect(evaluations.map((x) => [x.policyVersion, x.status])).toEqual([
      [0, "DONE"],
      [1, "DONE"],
      [2, "DONE"],
    ]);
  }, 300_000);

  it("promotes each candidate that passes: it is served, and the next step trains from it", async () => {
    const { e, steps, gated, versions, parents } = await gatedRun({ tolerance: 1 });
    expect(steps.map((s) => [s.version, s.served])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(loop.proxy.experiments.get(e.id)!.policyVersion).toBe(2);
    expect(parents).toEqual([0, 1]);
    expect(versions.map((v) => v.status)).toEqual(["RETIRED", "ACTIVE"]);
    expect([gated.held(1), gated.held(2)]).toEqual([null, null]);
  }, 300_000);
});
