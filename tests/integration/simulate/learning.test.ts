// Learning in the real loop, as a user runs it: simulated users (the official OpenAI client, session headers) talk to
// the recording proxy (embedded policy on the committed base), the judge worker (BullMQ, heuristic judge) judges
// every reply and derives hints, and the trainer steps and announces each version, which the proxy then serves —
// in lockstep (bench/lib/lockstep), so the same seed replays the same users. The claim is the headline metric's: the
// first replies to the persona's held-out questions (which the users never ask), graded as persona-v2 grades them —
// in the persona's style AND on topic — rise by a margin over an lr-0 control run on the same seed (same users,
// judge, hints and steps; no update), which grades exactly as the base.
import { beforeAll, describe, expect, it } from "vitest";
import path from "node:path";
import OpenAI from "openai";
import { db } from "../../../server/platform/db/client";
import { DEMO_EXPERIMENTS, DEMO_SIMULATION, demoConfig } from "../../../server/simulation/demo";
import { initBackend } from "../../../server/engine/backend";
import { loadCheckpoint } from "../../../server/engine/checkpoint";
import { disposeModel } from "../../../server/engine/model";
import { lockstepExperiment, lockstepJudge, runLockstep } from "../../../bench/lib/lockstep";
import { ungatedConfig } from "../../../bench/lib/gate";
import { firstReplyScore, type Rates } from "../../../bench/learning/firstReply";
import { makeKey, uniq, SEEDED_ROW } from "../../helpers/fixtures";
import { isolateRedis } from "../../helpers/isolate";
import { useTrainingLoop } from "../../helpers/trainingLoop";

isolateRedis("sim-learning");

/**
 * Combine (the demo's method with both signals) on Leo, the demo's user, with the form's defaults (the embedded
 * trainer's: lr 6e-4, batches of 8, whitened advantages, the full-vocabulary OPD term, hindsight demonstrations): what
 * a user gets. The loop is deterministic in lockstep (the same seed gave the same numbers run after run): at 8 steps
 * the bench measured 0.70 against the control's 0.15 on 128 replies (margin 0.55; on 32 replies, before this round's
 * fix of the style hints and the user's style hint in the teacher's context, 0.56 against 0.06);
 * the old defaults (lr 3e-4, no hindsight) reached 0.28 on 32 (margin 0.22), which this margin refuses — see the
 * README's learning section.
 */
const METHOD = "combine";
const PERSONA = "leo";
const SEED = 7;
const STEPS = 8;
const LR = demoConfig(DEMO_EXPERIMENTS.find((d) => demoConfig(d).method === METHOD)!).hyper.lr;
/** The least rise of first-reply "style and on topic" over the control that counts as learning. */
const MARGIN = 0.3;

let client: OpenAI;
beforeAll(initBackend);
const loop = useTrainingLoop("sim-learning");
beforeAll(async () => {
  client = new OpenAI({
    apiKey: await makeKey(["proxy", "write", "identity"]),
    baseURL: `${loop.proxy.url}/v1`,
    maxRetries: 0,
  });
});

const config = (lr: number) => {
  // every step served at once: the trainer's own trajectory (the demo gates promotion)
  const c = ungatedConfig(demoConfig(DEMO_EXPERIMENTS.find((d) => demoConfig(d).method === METHOD)!));
  c.policy = { kind: "embedded", checkpoint: path.resolve("models/base") };
  c.hyper.lr = lr;
  c.evaluation.enabled = false;
  return c;
};

/** STEPS lockstep steps at learning rate `lr`; the checkpoint the proxy serves at the end. */
async function train(lr: number): Promise<string> {
  const c = config(lr);
  const { experiment: e, runId } = await lockstepExperiment(c, {
    slug: uniq("learn"),
    name: `learning test (lr ${lr})`,
    description: SEEDED_ROW,
  });
  const judge = lockstepJudge(e.id);
  try {
    const steps = await runLockstep({
      experimentId: e.id,
      slug: e.slug,
      runId,
      proxy: loop.proxy,
      client,
      trainer: loop.trainer,
      settings: { ...DEMO_SIMULATION, personas: [PERSONA], seed: SEED },
      steps: STEPS,
      nonce: `lr${lr}`,
      timeoutMs: 300_000,
    });
    expect(steps).toHaveLength(STEPS);
  } finally {
    await judge.close();
  }
  const served = await db().policyVersion.findFirstOrThrow({
    where: { experimentId: e.id, version: loop.proxy.experiments.get(e.id)!.policyVersion },
  });
  return served.checkpointPath!;
}

async function firstReplies(checkpoint: string): Promise<Rates> {
  const { model } = await loadCheckpoint(checkpoint);
  try {
    // the bench's grade: K samples per held-out question at T = 1, at least 128 replies
    return (await firstReplyScore(model, PERSONA, { maxTokens: config(0).serving.maxTokens })).sampled;
  } finally {
    disposeModel(model);
  }
}

describe("learning in the real loop (simulated users → proxy → judge → trainer)", () => {
  it(
    `first replies in ${PERSONA}'s style and on topic rise by ${MARGIN} over an lr-0 control on the same seed`,
    { timeout: 1_800_000 },
    async () => {
      const learned = await firstReplies(await train(LR));
      const control = await firstReplies(await train(0));
      const base = await firstReplies(path.resolve("models/base"));
      const f = (r: Rates) =>
        `both ${r.both.toFixed(2)} (style ${r.style.toFixed(2)}, on topic ${r.onTopic.toFixed(2)})`;
      console.log(`first replies after ${STEPS} steps: learned ${f(learned)}; control ${f(control)}; base ${f(base)}`);
      // At lr 0 nothing moved: the control grades exactly as the base (same weights, same sampling seeds).
      expect(control).toEqual(base);
      expect(learned.both).toBeGreaterThanOrEqual(control.both + MARGIN);
    },
  );
});
