// A user's held-out grade: first replies to the persona's held-out questions (never asked in training), K samples per
// question at T = 1 with fixed seeds (the same replies' seeds for every adapter graded: a paired comparison), each
// graded "preference and on topic" (simulation/grader.ts checkReply, persona-v2). Served by `adapter` on the engine's
// base, or by the base alone. bench/personal grades its arms with it, bench/learning/demo.ts the live per-user demo.
import type { ServedAdapter } from "../../server/engine/adapterPool";
import type { EmbeddedEngine } from "../../server/engine/engine";
import { END_ID } from "../../server/engine/tokenizer";
import { checkReply, type ReplyCheck } from "../../server/simulation/grader";
import { heldOutQuestionsFor, type Persona, type Question } from "../../server/simulation/personas";

export interface HeldOutGrade {
  /** the preference alone */
  style: number;
  /** preference and on topic */
  both: number;
  replies: number;
}

export async function heldOutGrade(
  engine: EmbeddedEngine,
  user: Persona,
  adapter: ServedAdapter | undefined,
  o: { k: number; maxTokens: number; onReply?: (question: Question, check: ReplyCheck, text: string) => void },
): Promise<HeldOutGrade> {
  const held = heldOutQuestionsFor(user);
  let style = 0;
  let both = 0;
  for (let i = 0; i < held.length * o.k; i++) {
    const q = held[i % held.length]!;
    const r = await engine.chat([{ role: "user", content: q.text }], {
      maxTokens: o.maxTokens,
      temperature: 1,
      stopIds: [END_ID],
      seed: 7_000_000 + i,
      adapter,
    });
    const c = checkReply(user, q, r.text);
    o.onReply?.(q, c, r.text);
    if (c.style) style++;
    if (c.ok) both++;
  }
  const replies = held.length * o.k;
  return { style: style / replies, both: both / replies, replies };
}
