// Style demonstrations: the hinted teacher's turns on public prompts of the base's own pool (models/base/prompts.json),
// each asked with a user's style hint — context distillation over a prompt distribution, so a policy learns the style
// a user asked for and not only the replies to the few questions they asked. Used by the per-user adapters
// (personalization/step.ts, perUser.stylePrompts) and the shared trainer (trainInputs.ts, hyper.stylePrompts). Departs
// from the reference, which distils only the corrected turns themselves.
import { fitChat } from "../engine/fit";
import { mulberry32 } from "../engine/rng";
import { messageText } from "./messageText";

/** What the style demonstrations need of a sample: its request, its hint, and whose it is. */
export interface StyleSource {
  messages: readonly unknown[];
  hint: string | null;
  /** the same user's remembered hint (personalization/step.ts withUserHints), used when the turn has no style hint */
  userHint?: string | null;
  /** whose turn: each user's prompts carry that user's hint */
  endUserId?: string | null;
}

/** A style demonstration's turn, as the hinted teacher takes it (trainInputs.ts HintedTurn). */
export interface StyleTurn {
  messages: unknown[];
  tools: undefined;
  promptIds: number[];
  hint: string;
}

/**
 * Does the hint only restate a question the user asked? It contains a question of one of the request's user messages
 * (a sentence ending in "?", 8 characters or more): the heuristic judge's hint from an off-topic rejection is "Answer
 * the question the user asked: <the question>". Any user message, not only the last: a reply after a correction ("no —
 * use a bullet list") that misses the question is rejected with the question asked turns earlier, and taken for a style
 * hint that hint had the style demonstrations answer that question to every public prompt of a step (3 steps in 6 of a
 * measured run).
 */
export function restatesQuestion(hint: string, messages: readonly unknown[]): boolean {
  const h = hint.toLowerCase();
  return messages
    .filter((m) => (m as { role?: unknown } | null)?.role === "user")
    .flatMap((m) => messageText(m).match(/[^.!?:\n]*\?/g) ?? [])
    .map((q) => q.trim())
    .some((q) => q.length >= 8 && h.includes(q.toLowerCase()));
}

/** The sample's own hint when it asks for a style rather than restating its question; else none. */
export function ownStyleHint(s: Pick<StyleSource, "hint" | "messages">): string | null {
  return s.hint && !restatesQuestion(s.hint, s.messages) ? s.hint : null;
}

/**
 * Each user's style hint in a batch: their latest hint that does not restate its question, else the remembered one
 * (`userHint`) — what they ask of every reply, as opposed to "answer the question …", which fits one question only.
 */
export function styleHints(samples: readonly StyleSource[]): Map<string | null | undefined, string> {
  const latest = new Map<string | null | undefined, string>();
  for (const s of samples) {
    const h = ownStyleHint(s) ?? s.userHint;
    if (h) latest.set(s.endUserId, h);
  }
  return latest;
}

/** The most users whose style hint a training run remembers (the most recently heard). */
export const REMEMBERED_STYLE_HINTS = 64;

/**
 * A run's memory of its users' style hints (hyper.rememberedStyleHints): `memory` with the batch's own `heard` hints
 * set as the most recent, and the least recently heard users past `cap` forgotten.
 */
export function rememberStyleHints(
  memory: Map<string | null | undefined, string>,
  heard: ReadonlyMap<string | null | undefined, string>,
  cap = REMEMBERED_STYLE_HINTS,
): void {
  for (const [user, hint] of heard) {
    memory.delete(user);
    memory.set(user, hint);
  }
  for (const user of [...memory.keys()].slice(0, Math.max(0, memory.size - cap))) memory.delete(user);
}

/**
 * The style demonstrations' turns: `count` prompts of the pool (at most all of it), drawn without replacement in a
 * seeded order and shared out among the batch's users (one user: all of them), each asked with that user's style hint.
 * With `remembered` (a run's memory, most recently heard last), users without a style hint in the batch are taught
 * with their remembered one too, the most recently heard first, up to `count` users in all. The prompts are public
 * (the base checkpoint's own, no held-out question among them), the hints the batch's own or the run's.
 */
export function styleTurns(
  samples: readonly StyleSource[],
  pool: readonly string[],
  count: number,
  o: { seed: number; budget: number; remembered?: ReadonlyMap<string | null | undefined, string> },
): StyleTurn[] {
  const own = styleHints(samples);
  const earlier = [...(o.remembered ?? new Map<string | null | undefined, string>())]
    .reverse()
    .filter(([user]) => !own.has(user))
    .map(([, hint]) => hint);
  const hints = [...own.values(), ...earlier].slice(0, Math.max(own.size, count));
  if (!hints.length || !pool.length || count < 1 || o.budget < 1) return [];
  const rng = mulberry32(o.seed ^ 0x5f3759df);
  const order = pool
    .map((p) => ({ p, k: rng() }))
    .sort((a, b) => a.k - b.k)
    .map((x) => x.p);
  // At most the whole pool per user: one user's prompts are distinct (the users of a shared batch may share some).
  const each = Math.min(order.length, Math.ceil(count / hints.length));
  return hints.flatMap((hint, u) =>
    Array.from({ length: each }, (_, i) => {
      const messages = [{ role: "user" as const, content: order[(u * each + i) % order.length]! }];
      return {
        messages,
        tools: undefined,
        promptIds: fitChat(messages, o.budget, { addGenerationPrompt: true }),
        hint,
      };
    }),
  );
}
