// One step of one user's adapter from one batch of that user's samples: the hindsight demonstrations of the batch's
// hinted turns (the shared trainer's teacher, training/trainInputs.ts hintedTeacherDemos, on the frozen base), then
// the adapter step (engine/loraTrain.ts). Everything it trains on is in `samples`: the caller's batch of one user.
import type { ExperimentConfig } from "../config/experimentConfig";
import type { LoraAdapter } from "../engine/lora";
import { adapterStep, type AdapterSample, type AdapterStepResult } from "../engine/loraTrain";
import type { PolicyModel } from "../engine/model";
import { hintedTeacherDemos } from "../training/trainInputs";

/** A sample with what the hinted teacher needs: the served request and the turn's accepted hint. */
export interface HintedAdapterSample extends AdapterSample {
  messages: unknown[];
  hint: string | null;
}

export async function userAdapterStep(
  base: PolicyModel,
  adapter: LoraAdapter,
  samples: readonly HintedAdapterSample[],
  pu: Pick<
    ExperimentConfig["perUser"],
    "lr" | "advantages" | "hindsightSamples" | "hindsightWeight" | "hindsightMinLogprob"
  >,
  opts: { maxTokens: number; seed: number },
): Promise<AdapterStepResult & { demos: number }> {
  const demos = await hintedTeacherDemos(
    base,
    samples.map((s) => ({ messages: s.messages, tools: undefined, promptIds: s.promptIds, hint: s.hint })),
    { samples: pu.hindsightSamples, minLogprob: pu.hindsightMinLogprob, maxTokens: opts.maxTokens, seed: opts.seed },
  );
  const step = adapterStep(base, adapter, samples, {
    lr: pu.lr,
    advantages: pu.advantages,
    demos,
    demoWeight: pu.hindsightWeight,
  });
  return { ...step, demos: demos.length };
}
