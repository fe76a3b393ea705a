// The headline measure of learning: a version's first replies to the persona's held-out questions (which the simulated
// users never ask), graded as persona-v2 grades them — in the persona's style, on topic, and both. K samples per
// question at temperature 1 and one greedy reply, with the same seeds for every version (a paired comparison).
import { generateBatch } from "../../server/engine/generate";
import type { PolicyModel } from "../../server/engine/model";
import { renderChat } from "../../server/engine/tokenizer";
import { checkReply } from "../../server/simulation/grader";
import { getPersona, heldOutQuestionsFor } from "../../server/simulation/personas";

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
  opts: { k?: number; maxTokens: number; seed?: number },
): Promise<FirstReplyScore> {
  const persona = getPersona(personaId);
  const questions = heldOutQuestionsFor(persona);
  const k = opts.k ?? 4;
  const prompt = (text: string) => renderChat([{ role: "user", content: text }], { addGenerationPrompt: true });
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
