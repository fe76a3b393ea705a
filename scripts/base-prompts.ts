/**
 * Write the embedded base's prompt pool, `prompts.json` beside its weights: the questions of its pretraining corpus
 * (server/simulation/personas.ts QUESTIONS) minus the held-out split, whose questions only the evaluation and the
 * benchmarks ask. The per-user trainer's style demonstrations (perUser.stylePrompts, personalization/step.ts) draw their
 * prompts from it: public prompts the base was trained on, never a user's turns, and never a question a version is
 * graded on.
 *
 *   npx tsx scripts/base-prompts.ts --out models/base
 *
 * (That exact command wrote the committed models/base/prompts.json; a unit test checks it is what this script writes.)
 */
import fs from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import type { PromptPool } from "../server/engine/checkpoint";
import { HELD_OUT_QUESTION_IDS, QUESTIONS } from "../server/simulation/personas";

export function basePromptPool(): PromptPool {
  return {
    source: "scripts/base-prompts.ts: the pretraining corpus's questions minus the held-out split",
    prompts: QUESTIONS.filter((q) => !HELD_OUT_QUESTION_IDS.has(q.id)).map((q) => q.text),
  };
}

async function main() {
  const { values } = parseArgs({ options: { out: { type: "string", default: "models/base" } } });
  const file = path.join(values.out, "prompts.json");
  await fs.writeFile(file, JSON.stringify(basePromptPool(), null, 2) + "\n");
  console.log(`wrote ${file}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) void main();
