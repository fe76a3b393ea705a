// Diagnostic: how fast can pure hindsight (context distillation on first-turn prompts) move first replies, with no
// simulated loop around it? Each step: `q` of the persona's training questions, `n` replies sampled from the hinted
// base (its style correction turned into the judge's hint), trained on the un-hinted prompt by cross-entropy with
// Adam at `lr` for `epochs` passes. Graded on the held-out questions as bench/learning grades (persona-v2).
//   npx tsx bench/learning/ceiling.ts --persona leo --lr 3e-4 --epochs 1 --q 3 --n 2 --steps 12
import { parseArgs } from "node:util";
import { initBackend } from "../../server/engine/backend";
import { loadCheckpoint } from "../../server/engine/checkpoint";
import { generateBatch } from "../../server/engine/generate";
import { Adam } from "../../server/engine/optimizer";
import { renderChat } from "../../server/engine/tokenizer";
import { trainStep, type TrainSample } from "../../server/engine/train";
import { deriveHint } from "../../server/judge/core/heuristic";
import { hintedTeacherMessages } from "../../server/judge/core/teacher";
import { correctionsOf } from "../../server/simulation/conversation";
import { getPersona, questionsFor } from "../../server/simulation/personas";
import { mulberry32 } from "../../server/engine/rng";
import { firstReplyScore } from "./firstReply";

const { values } = parseArgs({
  options: {
    persona: { type: "string", default: "leo" },
    lr: { type: "string", default: "3e-4" },
    epochs: { type: "string", default: "1" },
    q: { type: "string", default: "3" },
    n: { type: "string", default: "2" },
    steps: { type: "string", default: "12" },
    kl: { type: "string", default: "0" },
  },
});
const persona = getPersona(values.persona!);
const lr = Number(values.lr);
await initBackend();
const model = (await loadCheckpoint("models/base")).model;
const base = (await loadCheckpoint("models/base")).model;
const opt = new Adam({ lr, beta1: 0.9, beta2: 0.98, weightDecay: 0.1 });
const qs = questionsFor(persona);
const hints = correctionsOf(persona)
  .map((c) => deriveHint(c)!)
  .filter(Boolean);
const rng = mulberry32(7);
const pick = <T>(a: readonly T[]) => a[Math.floor(rng() * a.length)]!;
const grade = async (step: number) => {
  const s = await firstReplyScore(model, persona.id, { maxTokens: 96 });
  console.log(
    `step ${step}: both ${s.sampled.both.toFixed(2)} style ${s.sampled.style.toFixed(2)} onTopic ${s.sampled.onTopic.toFixed(2)} greedy ${s.greedy.both.toFixed(2)}`,
  );
};
await grade(0);
for (let step = 1; step <= Number(values.steps); step++) {
  const jobs = Array.from({ length: Number(values.q) }, () => ({ q: pick(qs), hint: pick(hints) })).flatMap((j) =>
    Array.from({ length: Number(values.n) }, () => j),
  );
  const prompt = (text: string) => renderChat([{ role: "user", content: text }], { addGenerationPrompt: true });
  const hinted = (text: string, hint: string) =>
    renderChat(hintedTeacherMessages([{ role: "user", content: text }], hint) as Parameters<typeof renderChat>[0], {
      addGenerationPrompt: true,
    });
  const gens = await generateBatch(
    base,
    jobs.map((j) => hinted(j.q.text, j.hint)),
    { maxTokens: 96, temperature: 1, seed: step },
  );
  const samples: TrainSample[] = gens
    .map((g, i) => ({ g, i }))
    .filter(({ g }) => g.tokenIds.length > 0)
    .map(({ g, i }) => ({
      promptIds: prompt(jobs[i]!.q.text),
      responseIds: g.tokenIds,
      oldLogprobs: g.logprobs,
      reward: 0,
      kind: "DEMO" as const,
      context: "first" as const,
    }));
  const m = await trainStep(
    model,
    opt,
    samples,
    {
      lr,
      epochs: Number(values.epochs),
      wDemo: 1,
      baseKlCoef: Number(values.kl),
      oldLogprobs: "decoupled",
      gradClip: 1,
      microBatchSize: 8,
    },
    { refModel: base },
  );
  if (step % 4 === 0) {
    console.log(`  demo_nll ${m["train/demo_nll"].toFixed(3)} grad ${m["train/grad_norm"].toFixed(2)}`);
    await grade(step);
  }
}
process.exit(0);
