// One step of one user's adapter from one batch of that user's samples: the hindsight demonstrations of the batch's
// hinted turns (the shared trainer's teacher, training/trainInputs.ts hintedTeacherDemos, on the frozen base), then
// the adapter step (engine/loraTrain.ts). What it trains on is `samples`, the caller's batch of one user, and the
// hinted teacher's replies to public prompts of the base's own pool with that user's style hint (stylePrompts,
// training/styleDemos.ts).
import type { ExperimentConfig } from "../config/experimentConfig";
import type { LoraAdapter } from "../engine/lora";
import { adapterStep, type AdapterSample, type AdapterStepResult } from "../engine/loraTrain";
import type { PolicyModel } from "../engine/model";
import { scoreBatch } from "../engine/score";
import { ownStyleHint, restatesQuestion, styleTurns } from "../training/styleDemos";
import { hintedTeacherDemos, type HintedTurn } from "../training/trainInputs";

/** A sample with what the hinted teacher needs: the served request and the turn's accepted hint. */
export interface HintedAdapterSample extends AdapterSample {
  messages: unknown[];
  hint: string | null;
  /**
   * The same user's latest accepted hint from an earlier turn that does not restate its question (`rememberedHint`):
   * what this user asks of every reply. The caller finds it among that user's turns only.
   */
  userHint?: string | null;
  /** whose turn: in a shared adapter's batch (config EVERYONE) each user's hints stay with that user */
  endUserId?: string;
}

/**
 * The hint the teacher hears for a sample (`rememberedHint` on): a hint that only restates the question is replaced
 * by the user's latest other hint. With "answer the question …" alone, the hinted base answers in its default style
 * — the one this user corrected before — so the demonstrations of exactly the replies that had learnt the user's
 * style but missed the content would teach it away again (measured on the embedded base with the heuristic judge's
 * hints: Leo's bullet lists and on topic 0.13 of the hinted replies with the restated question, 0.75 with his own
 * style hint; Sam's hints 0.13 against 0.75; the question is in the prompt either way). Per user the earlier hint is
 * that user's own, so it is what they asked of every reply.
 */
export function teacherHint(s: HintedAdapterSample, remembered: boolean): string | null {
  if (!s.hint) return null;
  return remembered && s.userHint && restatesQuestion(s.hint, s.messages) ? s.userHint : s.hint;
}

export async function userAdapterStep(
  base: PolicyModel,
  adapter: LoraAdapter,
  samples: readonly HintedAdapterSample[],
  pu: Pick<
    ExperimentConfig["perUser"],
    | "lr"
    | "gradClip"
    | "advantages"
    | "hindsightSamples"
    | "hindsightWeight"
    | "hindsightMinLogprob"
    | "hindsightMinGain"
    | "rememberedHint"
    | "baseKlCoef"
    | "baseKlScope"
    | "hindsightRelevance"
    | "hindsightTarget"
    | "hindsightFocus"
    | "hindsightTemperature"
    | "stylePrompts"
  >,
  /** `promptPool`: the base checkpoint's public prompts the style demonstrations are drawn from (stylePrompts) */
  opts: { maxTokens: number; seed: number; promptPool?: readonly string[] },
): Promise<AdapterStepResult & { demos: number; demoSamples: Array<{ promptIds: number[]; responseIds: number[] }> }> {
  const own: HintedTurn[] = samples.map((s) => ({
    messages: s.messages,
    tools: undefined,
    promptIds: s.promptIds,
    hint: teacherHint(s, pu.rememberedHint),
  }));
  const style = styleTurns(samples, opts.promptPool ?? [], pu.stylePrompts, {
    seed: opts.seed,
    budget: base.config.ctx - opts.maxTokens,
  });
  const taught = await hintedTeacherDemos(base, [...own, ...style], {
    samples: pu.hindsightSamples,
    minLogprob: pu.hindsightMinLogprob,
    minGain: pu.hindsightMinGain,
    maxTokens: opts.maxTokens,
    seed: opts.seed,
  });
  const demos = pu.hindsightRelevance
    ? relevantDemos(
        base,
        taught,
        samples.map((s) => s.promptIds),
      )
    : taught;
  const step = adapterStep(base, adapter, samples, {
    lr: pu.lr,
    gradClip: pu.gradClip,
    advantages: pu.advantages,
    demos,
    demoWeight: pu.hindsightWeight,
    baseKl: pu.baseKlCoef,
    baseKlScope: pu.baseKlScope,
    demoTarget: pu.hindsightTarget,
    demoFocus: pu.hindsightFocus,
    demoTemperature: pu.hindsightTemperature,
  });
  // The demonstrations' replies too, so a caller (bench/personal --show) can read what the teacher taught.
  return {
    ...step,
    demos: demos.length,
    demoSamples: demos.map(({ promptIds, responseIds }) => ({ promptIds, responseIds })),
  };
}

/**
 * The demonstrations that are about their own prompt (`hindsightRelevance`): the frozen base without the hint finds
 * the reply likelier (mean token log-prob) after its own prompt than after every other prompt of the batch. The
 * hinted teacher's confidence does not tell a reply in the user's style about another question ("Hint: think about
 * when muscles actually repair." to "What does photosynthesis produce?", the base's memorised continuation of
 * "Hint: think about") from one about this question: such a reply is as likely after any prompt. A demonstration
 * whose prompt is the batch's only one is kept (nothing to compare with).
 */
export function relevantDemos<T extends { promptIds: number[]; responseIds: number[] }>(
  base: PolicyModel,
  demos: readonly T[],
  batchPrompts: ReadonlyArray<readonly number[]>,
): T[] {
  const prompts = [...new Map(batchPrompts.map((p) => [p.join(","), p])).values()];
  const mean = (lp: number[]) => lp.reduce((a, b) => a + b, 0) / Math.max(1, lp.length);
  return demos.filter((d) => {
    const own = d.promptIds.join(",");
    const others = prompts.filter((p) => p.join(",") !== own);
    if (!others.length) return true;
    const [mine, ...theirs] = scoreBatch(
      base,
      [d.promptIds, ...others].map((p) => ({ promptIds: p, responseIds: d.responseIds })),
    ).map(mean);
    return theirs.every((x) => mine > x);
  });
}

/**
 * Each sample with its `userHint`: the latest hint among its own user's samples before it (oldest first) that does not
 * restate its own question.
 */
export function withUserHints<T extends HintedAdapterSample>(samples: readonly T[]): T[] {
  // Keyed by user: in a shared adapter's samples (config EVERYONE) one user's hint never stands in for another's.
  const latest = new Map<string | undefined, string>();
  return samples.map((s) => {
    const out = { ...s, userHint: latest.get(s.endUserId) ?? null };
    const own = ownStyleHint(s);
    if (own) latest.set(s.endUserId, own);
    return out;
  });
}
