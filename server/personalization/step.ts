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
  /**
   * The same user's latest accepted hint from an earlier turn that does not restate its question (`rememberedHint`):
   * what this user asks of every reply. The caller finds it among that user's turns only.
   */
  userHint?: string | null;
}

function textOf(m: unknown): string {
  const c = (m as { content?: unknown } | null)?.content;
  if (typeof c === "string") return c;
  return Array.isArray(c)
    ? c.map((p) => (typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("")
    : "";
}

/**
 * Does the hint only restate the question the user asked? It contains the question of the request's last user
 * message (its last sentence ending in "?"): the heuristic judge's hint from an off-topic rejection is "Answer the
 * question the user asked: <the question>".
 */
export function restatesQuestion(hint: string, messages: readonly unknown[]): boolean {
  const last = [...messages].reverse().find((m) => (m as { role?: unknown } | null)?.role === "user");
  const question = /[^.!?:]*\?\s*$/.exec(last ? textOf(last) : "")?.[0].trim();
  return !!question && question.length >= 8 && hint.toLowerCase().includes(question.toLowerCase());
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
    "lr" | "gradClip" | "advantages" | "hindsightSamples" | "hindsightWeight" | "hindsightMinLogprob" | "rememberedHint"
  >,
  opts: { maxTokens: number; seed: number },
): Promise<AdapterStepResult & { demos: number }> {
  const demos = await hintedTeacherDemos(
    base,
    samples.map((s) => ({
      messages: s.messages,
      tools: undefined,
      promptIds: s.promptIds,
      hint: teacherHint(s, pu.rememberedHint),
    })),
    { samples: pu.hindsightSamples, minLogprob: pu.hindsightMinLogprob, maxTokens: opts.maxTokens, seed: opts.seed },
  );
  const step = adapterStep(base, adapter, samples, {
    lr: pu.lr,
    gradClip: pu.gradClip,
    advantages: pu.advantages,
    demos,
    demoWeight: pu.hindsightWeight,
  });
  return { ...step, demos: demos.length };
}

/**
 * Each sample with its `userHint`: the latest hint among the samples before it (oldest first, all of one user) that
 * does not restate its own question.
 */
export function withUserHints<T extends HintedAdapterSample>(samples: readonly T[]): T[] {
  let latest: string | null = null;
  return samples.map((s) => {
    const out = { ...s, userHint: latest };
    if (s.hint && !restatesQuestion(s.hint, s.messages)) latest = s.hint;
    return out;
  });
}
