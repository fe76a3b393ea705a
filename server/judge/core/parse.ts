// Parsing judge answers exactly as the reference does: the LAST `\boxed{<single digit>}` counts,
// only the allowed values are kept, and the hint is the LAST [HINT_START]…[HINT_END] block.
import type { VoteValue } from "./schemas";

const BOXED_RE = /\\boxed\{([-+]?\d)\}/g;
const HINT_RE = /\[HINT_START\]([\s\S]*?)\[HINT_END\]/g;

function lastBoxed(text: string): number | null {
  let last: string | null = null;
  for (const match of text.matchAll(BOXED_RE)) last = match[1];
  // `+ 0` turns a parsed "-0" into 0.
  return last === null ? null : Number.parseInt(last, 10) + 0;
}

/** PRM vote: 1, -1 or 0; anything else (no box, \boxed{2}, …) is null. */
export function parseEvalVote(text: string): VoteValue | null {
  const value = lastBoxed(text);
  return value === 1 || value === -1 || value === 0 ? value : null;
}

/** Hint vote: the decision must be ±1; the hint is the last HINT block, trimmed ("" when absent). */
export function parseHintVote(text: string): { value: 1 | -1 | null; hint: string } {
  const value = lastBoxed(text);
  let hint = "";
  for (const match of text.matchAll(HINT_RE)) hint = match[1];
  return { value: value === 1 || value === -1 ? value : null, hint: hint.trim() };
}
