// Scores a tool-call task's final message. `boxed` follows upstream's strict math verifier: only the last
// \boxed{…} counts, and a message without one is wrong; numbers compare as numbers (so 391 = 391.0).
import type { ToolCallTask } from "./spec";

/** The content of the last \boxed{…}, braces balanced, or null. */
export function lastBoxed(text: string): string | null {
  const start = text.lastIndexOf("\\boxed{");
  if (start === -1) return null;
  let depth = 0;
  for (let i = start + "\\boxed".length; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return text.slice(start + "\\boxed{".length, i);
  }
  return null;
}

function normalise(s: string): string {
  return s
    .replace(/\s+/g, "")
    .replace(/^\$|\$$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
}

export function sameAnswer(given: string, expected: string): boolean {
  const a = normalise(given);
  const b = normalise(expected);
  const num = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
  if (num.test(a) && num.test(b)) return Number(a) === Number(b);
  return a === b;
}

/** +1 when the final message answers the task, −1 otherwise (upstream's outcome scale). */
export function scoreAnswer(task: Pick<ToolCallTask, "answer" | "verifier">, finalMessage: string): 1 | -1 {
  const given = task.verifier === "boxed" ? lastBoxed(finalMessage) : finalMessage;
  return given !== null && sameAnswer(given, task.answer) ? 1 : -1;
}
