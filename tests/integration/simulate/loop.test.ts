// The whole loop, end to end: simulated users (the official OpenAI client, session headers) → the recording proxy
// (embedded policy on the committed base checkpoint) → the judge worker (BullMQ, heuristic judge) → the trainer
// (GRPO steps, checkpoints, version announcements) → the proxy serving each new version. Run in lockstep with a
// fixed seed, so the outcome is reproducible: versions advance, every trained sample traces back to a recorded
// turn and its judgment, and every served version's judged reward is reported. Whether the loop *learns* is the
// claim of tests/integration/simulate/learning.test.ts (the same loop, first replies graded by persona-v2 against an
// lr-0 control) and of bench/learning (several seeds, longer runs).
import { describe, expect, it } from "vitest";
import path from "node:path";
import OpenAI from "openai";
import { db } from "../../../server/platform/db/client";
import { DEMO_EXPERIMENTS, DEMO_SIMULATION, demoConfig } from "../../../server/simulation/demo";
import { lockstepExperiment, lockstepJudge, runLockstep } from "../../../bench/lib/lockstep";
import { ungatedConfig } from "../../../bench/lib/gate";
import { simulationProgress } from "../../../server/simulation/service";
import { StepRecordSchema } from "../../../server/training/schemas";
import { ADMIN, makeKey, uniq, SEEDED_ROW } from "../../helpers/fixtures";
import { isolateRedis } from "../../helpers/isolate";
import { useTrainingLoop } from "../../helpers/trainingLoop";

isolateRedis("sim-loop");

// The GRPO demo experiment as `npm start` seeds it.
const STEPS = 10;

const loop = useTrainingLoop("sim-loop");

describe("simulated users → proxy → judge → trainer → new version served", () => {
  it("runs in lockstep, one served version per step, and every trained sample traces back to a turn and its judgment", async () => {
    // every step served at once (the demo gates promotion: tests/integration/simulate/gatedLockstep.test.ts)
    const config = ungatedConfig(demoConfig(DEMO_EXPERIMENTS.find((d) => d.slug === "demo-grpo")!));
    config.policy = { kind: "embedded", checkpoint: path.resolve("models/base") };
    const BATCH = config.hyper.batchSize;
    const { experiment: e, runId } = await lockstepExperiment(config, {
      slug: uniq("loop"),
      name: "loop test",
      description: SEEDED_ROW,
    });
    const judge = lockstepJudge(e.id, 60_000);
    loop.onClose(() => judge.close());
    const client = new OpenAI({
      apiKey: await makeKey(["proxy", "write", "identity"]),
      baseURL: `${loop.proxy.url}/v1`,
      maxRetries: 0,
    });

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
    });

    // Versions advanced, one per step, and the proxy serves the last one.
    expect(steps.map((s) => s.version)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
    expect(loop.proxy.experiments.get(e.id)!.policyVersion).toBe(STEPS);
    const versions = await db().policyVersion.findMany({ where: { experimentId: e.id }, orderBy: { version: "asc" } });
    expect(versions.map((v) => v.version)).toEqual(steps.map((s) => s.version));
    expect(versions.at(-1)!.status).toBe("ACTIVE");

    // Every trained sample: a recorded, simulated main turn served by an earlier version, with the user's reaction as
    // its next state, and the judgment whose score became its reward.
    const records = await db().trainingStep.findMany({
      where: { runId },
      orderBy: { step: "asc" },
      include: { samples: true },
    });
    expect(records).toHaveLength(STEPS);
    for (const r of records) {
      const { trace, parentVersion } = StepRecordSchema.parse(r.metrics);
      expect(trace).toHaveLength(BATCH);
      expect(new Set(trace.map((t) => t.sampleId))).toEqual(new Set(r.samples.map((s) => s.id)));
      for (const t of trace) {
        const turn = await db().turn.findUniqueOrThrow({
          where: { id: t.turnId },
          include: { session: true, judgments: true },
        });
        const sample = r.samples.find((s) => s.id === t.sampleId)!;
        expect(sample.turnId).toBe(turn.id);
        expect(turn).toMatchObject({
          experimentId: e.id,
          turnType: "MAIN",
          status: "OK",
          simulated: true,
          session: { simulated: true, persona: "leo" },
        });
        expect(turn.policyVersion).toBeLessThanOrEqual(parentVersion);
        expect(turn.tokenIds.length).toBeGreaterThan(0);
        // The user's reaction, or — when the policy called the notes tool, which the simulated runtime answers — the
        // tool's result (the GRPO demo calls it now and then after a few steps at the embedded defaults).
        expect(["user", "tool"]).toContain(turn.nextStateRole);
        const judgment = turn.judgments.find((j) => j.id === t.judgmentId);
        expect(judgment, `judgment of turn ${turn.id}`).toBeDefined();
        expect(t).toMatchObject({ kind: "RL", labelSource: "JUDGE", reward: judgment!.score });
        expect(sample.reward).toBe(judgment!.score);
      }
    }

    // Every version up to the last step's parent served judged turns (lockstep: each new version serves the next
    // conversation), and their rewards are reported.
    const progress = await simulationProgress(ADMIN, { experimentId: e.id, versions: 500 });
    const byVersion = progress.versions;
    console.log(
      `judged reward per version: ${byVersion.map((v) => `v${v.version}=${v.reward.toFixed(2)}(${v.turns})`).join(" ")}`,
    );
    expect(byVersion.map((v) => v.version)).toEqual(Array.from({ length: byVersion.length }, (_, i) => i));
  }, 300_000);
});
