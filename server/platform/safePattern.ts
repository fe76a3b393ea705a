// User-supplied patterns (serving.sidePatterns / contextPatterns) run on every proxied message, on the event loop
// that serves every experiment. They are matched by RE2 (re2js: a pure-JS port, linear in the input for every
// pattern, no backreferences or lookaround), never by V8's backtracking RegExp. At save time a pattern RE2 cannot
// compile, or one with a nested repetition (the shape of catastrophic backtracking, e.g. `^(\w+\s?)*$`), is
// refused with a message naming it, so what is stored also behaves under a backtracking engine.
import { RE2JS } from "re2js";

/** Something with `test`, like a RegExp. */
export interface TextPattern {
  test(text: string): boolean;
  readonly source: string;
}

function escapeLiteral(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Case-insensitive, linear-time; a pattern RE2 cannot compile (stored before validation) is matched literally. */
export function compileSafePattern(pattern: string): TextPattern {
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch {
    re = RE2JS.compile(escapeLiteral(pattern), RE2JS.CASE_INSENSITIVE);
  }
  return { source: pattern, test: (text: string) => re.test(text) };
}

/** A repetition operator at `i` (`*`, `+`, `{n,}`, `{n,m}` with m > 1): its length, else 0. `?` repeats nothing. */
function repetitionAt(p: string, i: number): number {
  const c = p[i];
  if (c === "*" || c === "+") return 1;
  if (c !== "{") return 0;
  const m = /^\{(\d*)(,(\d*))?\}/.exec(p.slice(i));
  if (!m) return 0;
  const max = m[2] === undefined ? Number(m[1]) : m[3] === "" ? Infinity : Number(m[3]);
  return max > 1 ? m[0].length : 0;
}

/** Why a pattern is refused at save time, or null when it is accepted. */
export function patternProblem(pattern: string): string | null {
  try {
    RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (e) {
    return `is not a supported regular expression (RE2 syntax, no backreferences or lookaround): ${(e as Error).message}`;
  }
  // Star height: does a repeated group contain a repetition? Walk the pattern, skipping escapes and classes.
  const groups: boolean[] = []; // per open group: contains a quantifier
  let lastGroupRepeats = false; // the group that just closed contained one
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      i++;
      lastGroupRepeats = false;
      continue;
    }
    if (c === "[") {
      for (i++; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i++;
      lastGroupRepeats = false;
      continue;
    }
    if (c === "(") {
      groups.push(false);
      lastGroupRepeats = false;
      continue;
    }
    if (c === ")") {
      lastGroupRepeats = groups.pop() ?? false;
      if (lastGroupRepeats && groups.length) groups[groups.length - 1] = true;
      // Look at what follows the group.
      const rep = repetitionAt(pattern, i + 1);
      if (rep && lastGroupRepeats) return "nests a repetition inside a repeated group (catastrophic backtracking)";
      if (rep && groups.length) groups[groups.length - 1] = true;
      continue;
    }
    const rep = repetitionAt(pattern, i) || (c === "?" ? 1 : 0);
    if (rep && groups.length) groups[groups.length - 1] = true;
    if (rep > 1) i += rep - 1;
    lastGroupRepeats = false;
  }
  return null;
}
