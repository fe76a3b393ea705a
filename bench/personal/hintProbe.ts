// bench/personal/hintProbe.ts: can the frozen base write Sam's hints for his questions (issue #31)? For each of his
// held-out questions (and two trained ones), 8 seeded replies (T = 1) of the base with "Hint:" forced as the reply's
// start, and 8 of the hinted teacher (the base with his correction's judge hint in context, as hindsight samples
// them), each graded as bench/personal grades a first reply (simulation/grader.ts checkReply), with the reply's mean
// token log-prob. `npx tsx bench/personal/hintProbe.ts`
import { initBackend } from "../../server/engine/backend";
import { loadCheckpoint } from "../../server/engine/checkpoint";
import { generateBatch } from "../../server/engine/generate";
import { decode, encode, END_ID, renderChat } from "../../server/engine/tokenizer";
import { deriveHint } from "../../server/judge/core/heuristic";
import { checkReply } from "../../server/simulation/grader";
import { getPersona, heldOutQuestionsFor, questionsFor } from "../../server/simulation/personas";
import { hintedPromptIds } from "../../server/training/trainInputs";

async function main() {
  await initBackend();
  const { model: base } = await loadCheckpoint("models/base");
  const sam = getPersona("sam");
  const hint = deriveHint(sam.correction)!;
  console.log(`teacher hint: ${hint}`);
  for (const q of [...heldOutQuestionsFor(sam), ...questionsFor(sam).slice(0, 2)]) {
    const messages = [{ role: "user" as const, content: q.text }];
    const forced = [...renderChat(messages, { addGenerationPrompt: true }), ...encode("Hint:")];
    const hinted = hintedPromptIds(messages, undefined, hint, base.config.ctx - 96)!;
    for (const [name, prompt, prefix] of [
      ["base, 'Hint:' forced", forced, "Hint:"],
      ["hinted teacher", hinted, ""],
    ] as const) {
      const gens = await generateBatch(base, Array(8).fill(prompt), {
        maxTokens: 96,
        temperature: 1,
        seed: 5,
        stopIds: [END_ID],
      });
      let ok = 0;
      for (const g of gens) {
        const text = prefix + decode(g.tokenIds);
        const c = checkReply(sam, q, text);
        if (c.ok) ok++;
        const mean = g.logprobs.reduce((a, b) => a + b, 0) / g.logprobs.length;
        console.log(
          `  ${q.id} ${name} ${c.ok ? "ok" : c.style ? "off topic" : "style"} ${mean.toFixed(2)} ${JSON.stringify(text.slice(0, 80))}`,
        );
      }
      console.log(`${q.id} (${q.text}) ${name}: preference and on topic ${ok}/8`);
    }
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
