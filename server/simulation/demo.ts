// The demo `npm start` shows on first start: one experiment per method (GRPO, OPD, Combine) on the embedded
// policy, the heuristic judge and the CPU trainer, each with simulated users running. The same settings drive
// bench/learning, so the README's learning curves are the demo's.
//
// Why these numbers (measured on the 2-core box with bench/learning, seeds 7, 8, 9, 150 steps; see the README's learning
// section): one simulated user, Leo, whose hidden preference (bullet lists) the base model meets 9 % of the time
// unprompted and 84 % of the time with the judge's hint in context, so the reward has room to climb and OPD's teacher
// knows the answer; replies capped at 96 tokens (a bullet list fits, and generation is the main CPU cost); batches of
// 8 judged turns; lr 1e-3, and the embedded trainer's defaults for the rest (sampled OPD estimator with the ±2
// advantage clamp, dual-clip 3, no KL term: a KL coefficient of 0.1 slowed Combine without keeping replies on topic).
// GRPO passes +0.6 after 22–29 steps and Combine after 28–32; OPD alone does not learn here (it stays below the lr-0
// control), and both learners' replies drift off topic — open follow-ups in the README.
import { ExperimentConfigSchema, type ExperimentConfigInput } from "../config/experimentConfig";
import type { SimulationSettings } from "./schemas";

export interface DemoExperiment {
  slug: string;
  name: string;
  description: string;
  config: ExperimentConfigInput;
}

const PERSONA = "leo";

/** The demo's eval set: the persona set of its simulated users (created by the first-start seed). */
export const DEMO_EVAL_SET = "held-out personas";

const common = (method: "grpo" | "opd" | "combine", lr: number): ExperimentConfigInput => ({
  method,
  policy: { kind: "embedded", checkpoint: "models/base" },
  judge: { backend: { kind: "heuristic" } },
  trainer: { backend: "embedded" },
  hyper: { lr, batchSize: 8, keepCheckpoints: 5 },
  serving: { maxTokens: 96 },
  // Every third version (and the base) is graded on Leo's held-out questions, which the simulated users
  // never ask (personas.ts HELD_OUT_QUESTION_IDS): the Evaluation page's score next to the training reward.
  evaluation: { enabled: true, every: 3, set: DEMO_EVAL_SET, grader: "persona", k: 2, temperature: 0.7, seed: 1, maxTokens: 96 },
});

export const DEMO_EXPERIMENTS: readonly DemoExperiment[] = [
  {
    slug: "demo-grpo",
    name: "Demo: personal assistant (GRPO)",
    description: "Learns Leo's hidden preference (bullet lists) from the judge's ±1 scores of his replies. Embedded policy, heuristic judge, CPU trainer, simulated users.",
    config: common("grpo", 1e-3),
  },
  {
    slug: "demo-opd",
    name: "Demo: personal assistant (OPD)",
    description: "Learns Leo's hidden preference from the hints in his corrections (on-policy distillation from the hinted base model). Embedded policy, heuristic judge, CPU trainer, simulated users.",
    config: common("opd", 1e-3),
  },
  {
    slug: "demo",
    name: "Demo: personal assistant (combine)",
    description: "Learns Leo's hidden preference from both: ±1 scores and the hints in his corrections. Embedded policy, heuristic judge, CPU trainer, simulated users.",
    config: common("combine", 1e-3),
  },
];

/** The simulated users of every demo experiment: the same seed, so the three methods see the same users. */
export const DEMO_SIMULATION: SimulationSettings = { personas: [PERSONA], perMinute: 24, concurrency: 2, seed: 7, maxTurns: 4 };

export function demoConfig(d: DemoExperiment) {
  return ExperimentConfigSchema.parse(d.config);
}
