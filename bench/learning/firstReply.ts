// The headline measure of learning: a version's first replies to the persona's held-out questions (which the simulated
// users never ask), graded as persona-v2 grades them — in the persona's style, on topic, and both. K samples per
// question at temperature 1 and one greedy reply, with the same seeds for every version (a paired comparison).
// With a hint, the same questions asked of the hinted teacher (the judge's style hint in context, as OPD's teacher
// and the hindsight demonstrations see it): what distilling that teacher can reach on questions it never trained.
import { generateBatch } from "../../server/engine/generate";
import { wilson } from "../../server/environments/passRates";
import type { PolicyModel } from "../../server/engine/model";
import { renderChat, type ChatMessage } from "../../server/engine/tokenizer";
import { deriveHint } from "../../server/judge/core/heuristic";
import { hintedTeacherMessages } from "../../server/judge/core/teacher";
import { correctionsOf } from "../../server/simulation/conversation";
import { checkReply } from "../../server/simulation/grader";
import { getPersona, heldOutQuestionsFor } from "../../server/simulation/personas";

/** The fewest sampled replies a version is graded on, unless a K is given. At 32 (K = 4 for Leo) the grade's 95 %
 * interval was ±0.17: one checkpoint graded 0.63 with the fixed sampling seed and 0.31–0.63 with ten others, and two
 * seeds' "miss" and "hit" were the same rate (README "How sure a cell is"). At 128 it is about ±0.085. */
export const MIN_REPLIES = 128;

export interface Rates {
  style: number;
  onTopic: number;
  both: number;
  replies: number;
}

export interface FirstReplyScore {
  /** K samples per held-out question at T = 1 */
  sampled: Rates;
  /** one greedy reply per held-out question */
  greedy: Rates;
}

/** "0.55–0.71": a rate's 95 % Wilson interval (the promotion gate's, passRates.ts), as the bench prints it. */
export function interval95(r: Pick<Rates, "both" | "replies">): string {
  const { low, high } = wilson(Math.round(r.both * r.replies), r.replies);
  return low === null || high === null ? "—" : `${low.toFixed(2)}–${high.toFixed(2)}`;
}

function rates(checks: ReturnType<typeof checkReply>[]): Rates {
  const share = (f: (c: (typeof checks)[number]) => boolean) => checks.filter(f).length / Math.max(checks.length, 1);
  return {
    style: share((c) => c.style),
    onTopic: share((c) => c.onTopic),
    both: share((c) => c.ok),
    replies: checks.length,
  };
}

export async function firstReplyScore(
  model: PolicyModel,
  personaId: string,
  opts: { k?: number; maxTokens: number; seed?: number; hint?: string },
): Promise<FirstReplyScore> {
  const persona = getPersona(personaId);
  const questions = heldOutQuestionsFor(persona);
  // By default at least MIN_REPLIES replies per version: K = 16 for Leo's and Maya's 8 held-out questions, 13 for
  // Ava's 10, 64 for Sam's two.
  const k = opts.k ?? Math.ceil(MIN_REPLIES / questions.length);
  const prompt = (text: string) => {
    const asked: ChatMessage[] = [{ role: "user", content: text }];
    return renderChat(opts.hint ? (hintedTeacherMessages(asked, opts.hint) as ChatMessage[]) : asked, {
      addGenerationPrompt: true,
    });
  };
  const asked = questions.flatMap((q) => Array.from({ length: k }, () => q));
  const sampled = await generateBatch(
    model,
    asked.map((q) => prompt(q.text)),
    { maxTokens: opts.maxTokens, temperature: 1, seed: opts.seed ?? 11 },
  );
  const greedy = await generateBatch(
    model,
    questions.map((q) => prompt(q.text)),
    { maxTokens: opts.maxTokens, temperature: 0 },
  );
  return {
    sampled: rates(sampled.map((g, i) => checkReply(persona, asked[i]!, g.text))),
    greedy: rates(greedy.map((g, i) => checkReply(persona, questions[i]!, g.text))),
  };
}

/** The style hint the heuristic judge derives from the persona's own correction (what its hinted teacher hears). */
export function styleHintOf(personaId: string): string {
  const correction = correctionsOf(getPersona(personaId))[0]!;
  const hint = deriveHint(correction);
  if (!hint) throw new Error(`the judge derives no hint from ${JSON.stringify(correction)}`);
  return hint;
}

/** `npx tsx bench/learning/firstReply.ts [--checkpoint models/base] [--k K]`: every persona's first-reply rates,
 * un-hinted and from the hinted teacher. */
async function main() {
  const { parseArgs } = await import("node:util");
  const { initBackend } = await import("../../server/engine/backend");
  const { loadCheckpoint } = await import("../../server/engine/checkpoint");
  const { PERSONAS } = await import("../../server/simulation/personas");
  const { DEMO_EXPERIMENTS, demoConfig } = await import("../../server/simulation/demo");
  const { values } = parseArgs({ options: { checkpoint: { type: "string" }, k: { type: "string" } } });
  const checkpoint = values.checkpoint ?? "models/base";
  const k = values.k === undefined ? undefined : Number(values.k);
  const maxTokens = demoConfig(DEMO_EXPERIMENTS[0]!).serving.maxTokens;
  await initBackend();
  const { model } = await loadCheckpoint(checkpoint);
  console.log(
    `${checkpoint}: first replies to each persona's held-out questions, K = ${k ?? `enough for at least ${MIN_REPLIES} replies`} at T = 1 and greedy`,
  );
  console.log("persona | sampled: style / on topic / both (replies) | greedy: style / on topic / both (replies)");
  const f = (r: Rates) => `${r.style.toFixed(2)} / ${r.onTopic.toFixed(2)} / ${r.both.toFixed(2)} (${r.replies})`;
  for (const p of PERSONAS) {
    const s = await firstReplyScore(model, p.id, { k, maxTokens });
    const t = await firstReplyScore(model, p.id, { k, maxTokens, hint: styleHintOf(p.id) });
    console.log(`${p.id} | ${f(s.sampled)} | ${f(s.greedy)}`);
    console.log(`${p.id}, hinted teacher | ${f(t.sampled)} | ${f(t.greedy)}`);
  }
}

if (process.argv[1] && /firstReply\.ts$/.test(process.argv[1])) {
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
