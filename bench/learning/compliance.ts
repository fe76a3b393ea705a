/**
 * Does a checkpoint follow the hints the judge actually produces, and how often does it meet each persona's
 * hidden preference unprompted? Per persona, on that persona's questions, sampled as the demo serves (temperature
 * 1, the demo's reply cap):
 *
 * - hinted: the teacher's context (server/judge/core/teacher.ts hintedTeacherMessages) with the hint the heuristic
 *   judge derives (deriveHint) from one of the corrections the simulated user gives (correctionsOf), half on the
 *   first turn ([question]) and half after a correction ([question, a reply the persona rejects, correction]);
 * - unprompted: the first turn as the user sends it;
 * - on-topic: the persona grader's content check (personas.ts onTopic) on the unprompted replies.
 *
 *   npx tsx bench/learning/compliance.ts [--checkpoint models/base] [--samples 32] [--seed 1]
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { initBackend } from "../../server/engine/backend";
import { loadCheckpoint } from "../../server/engine/checkpoint";
import { generateBatch } from "../../server/engine/generate";
import type { PolicyModel } from "../../server/engine/model";
import { mulberry32, pick } from "../../server/engine/rng";
import { renderChat, type ChatMessage } from "../../server/engine/tokenizer";
import { deriveHint } from "../../server/judge/core/heuristic";
import { hintedTeacherMessages } from "../../server/judge/core/teacher";
import { correctionsOf } from "../../server/simulation/conversation";
import { DEMO_EXPERIMENTS, demoConfig } from "../../server/simulation/demo";
import { onTopic } from "../../server/simulation/grader";
import {
  PERSONAS,
  questionsFor,
  renderReply,
  satisfiesPreference,
  REPLY_STYLES,
} from "../../server/simulation/personas";

export interface PersonaCompliance {
  persona: string;
  preference: string;
  /** share of hinted-teacher replies that satisfy the preference */
  hinted: number;
  /** share of unprompted replies that satisfy it */
  unprompted: number;
  /** share of unprompted replies the persona grader finds on topic */
  onTopic: number;
  samples: number;
}

const DEMO_MAX_TOKENS = demoConfig(DEMO_EXPERIMENTS[0]).serving.maxTokens;

export async function measureCompliance(
  model: PolicyModel,
  opts: { samples?: number; seed?: number; maxTokens?: number; personas?: readonly string[] } = {},
): Promise<PersonaCompliance[]> {
  const n = opts.samples ?? 32;
  const seed = opts.seed ?? 1;
  const maxTokens = opts.maxTokens ?? DEMO_MAX_TOKENS;
  const out: PersonaCompliance[] = [];
  for (const persona of PERSONAS.filter((p) => !opts.personas || opts.personas.includes(p.id))) {
    const rng = mulberry32(seed * 7919 + persona.id.length);
    const questions = Array.from({ length: n }, () => pick(rng, questionsFor(persona)));
    const hintedPrompts = questions.map((q, i) => {
      const correction = pick(rng, correctionsOf(persona));
      const hint = deriveHint(correction);
      if (!hint) throw new Error(`the judge derives no hint from ${JSON.stringify(correction)}`);
      let context: ChatMessage[] = [{ role: "user", content: q.text }];
      if (i % 2 === 1) {
        let rejected = renderReply(q, pick(rng, REPLY_STYLES), { rng });
        if (satisfiesPreference(persona, rejected)) rejected = renderReply(q, "long", { rng });
        context = [...context, { role: "assistant", content: rejected }, { role: "user", content: correction }];
      }
      return renderChat(hintedTeacherMessages(context as never, hint) as ChatMessage[], { addGenerationPrompt: true });
    });
    const plainPrompts = questions.map((q) =>
      renderChat([{ role: "user", content: q.text }], { addGenerationPrompt: true }),
    );
    const hinted = await generateBatch(model, hintedPrompts, { maxTokens, temperature: 1, seed: seed * 1000 + 1 });
    const plain = await generateBatch(model, plainPrompts, { maxTokens, temperature: 1, seed: seed * 1000 + 2 });
    const share = (xs: boolean[]) => xs.filter(Boolean).length / xs.length;
    out.push({
      persona: persona.id,
      preference: persona.preference,
      hinted: share(hinted.map((g) => satisfiesPreference(persona, g.text))),
      unprompted: share(plain.map((g) => satisfiesPreference(persona, g.text))),
      onTopic: share(plain.map((g, i) => onTopic(questions[i], g.text))),
      samples: n,
    });
  }
  return out;
}

async function main() {
  const { values } = parseArgs({
    options: { checkpoint: { type: "string" }, samples: { type: "string" }, seed: { type: "string" } },
  });
  const args = z
    .object({
      checkpoint: z.string().default("models/base"),
      samples: z.coerce.number().int().min(2).default(32),
      seed: z.coerce.number().int().min(0).default(1),
    })
    .parse(values);
  await initBackend();
  const { model } = await loadCheckpoint(args.checkpoint);
  const rows = await measureCompliance(model, { samples: args.samples, seed: args.seed });
  console.log(
    `${args.checkpoint}: ${args.samples} samples per persona and context, temperature 1, ≤ ${DEMO_MAX_TOKENS} tokens`,
  );
  console.log("persona | preference | hinted compliance | unprompted | on-topic (unprompted)");
  for (const r of rows) {
    const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
    console.log(`${r.persona} | ${r.preference} | ${pct(r.hinted)} | ${pct(r.unprompted)} | ${pct(r.onTopic)}`);
  }
}

if (process.argv[1] && /compliance\.ts$/.test(process.argv[1])) {
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
