// The embedded judge for machines with no model server: transparent keyword rules over the next
// state. It writes its reasoning and a `\boxed{}` answer (plus a [HINT_START]…[HINT_END] hint for
// hint votes) in exactly the model's format, so the same parser and aggregator run on it.
import type { JudgeBackend } from "./judgeBackend";
import type { JudgeTask } from "./prompts";

export const HEURISTIC_JUDGE_LABEL = "Heuristic judge (keyword rules, no model)";
export const HEURISTIC_JUDGE_MODEL = "heuristic-rules-v1";

export type HeuristicVerdict = {
  value: 1 | -1 | 0;
  category: "progress" | "correction" | "ambiguous";
  /** Human-readable reason, shown in the vote's raw text. */
  cue: string;
};

const TOOL_ROLES = new Set(["tool", "function", "ipython", "environment"]);

// "no errors" / "0 failures" are success reports, not errors.
const TOOL_NON_ERROR = /\b(no|0|zero) (errors?|failures?|exceptions?)\b/gi;
const TOOL_ERROR =
  /\b(error|errors|exception|traceback|failed|failure|not found|no such file|permission denied|access denied|invalid|timed out|timeout|unauthorized|forbidden|refused|unable to|cannot)\b|"error"\s*:|\bexit (code|status)\D{0,3}[1-9]\d*\b|\b(status|http)\D{0,3}[45]\d\d\b/i;

const CORRECTION_START =
  /^(no|nope|nah|wrong|incorrect|not quite|not really|that'?s not|that is not|this is not|not what i)\b/;
const NOT_A_CORRECTION_START = /^no (problem|worries)\b/;
const CORRECTION =
  /\b(i meant|i said|i asked for|not what i (asked|wanted|meant)|you misunderstood|misunderstood|that'?s wrong|that is wrong|is wrong|you forgot|you missed|not (great|good|helpful|right|correct|perfect))\b/;
const REDO =
  /\b(try again|retry|redo|do it again|start over|one more time|again,? please|(that|it) didn'?t work|(doesn'?t|does not|isn'?t|is not) working|doesn'?t work|does not work|still (broken|wrong|failing|not)|didn'?t help)\b/;
const REPHRASE = /\b(let me rephrase|to rephrase|in other words|what i mean is|to clarify|i'?ll rephrase)\b/;
const CHANGE =
  /\b(shorter|longer|briefer|more (concise|detailed|formal|casual|specific|polite)|less (verbose|formal|wordy|detailed)|too (long|short|verbose|wordy|formal|casual|detailed)|simpler|make it|change (it|this|that)|instead|rather than|please (use|don'?t|do not|stop|avoid|write|add|remove)|(don'?t|do not) (use|do|write|add|include)|stop (using|doing|writing|adding))\b/;
const APPROVAL =
  /\b(thanks|thank you|thx|great|perfect|awesome|excellent|exactly|nice|good job|well done|works|worked|that'?s (right|correct|it)|correct|love it|looks good|lgtm|brilliant|amazing|helpful)\b|👍|🙏|🎉|❤/;

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);
}

/** Jaccard overlap of content words: a new message this close to the request restates it. */
function restatesRequest(text: string, request: string | null): boolean {
  if (!request) return false;
  const a = words(text);
  const b = words(request);
  if (a.size < 3 || b.size < 3) return false;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared) >= 0.6;
}

function firstMatch(re: RegExp, text: string): string {
  return re.exec(text)?.[0] ?? "";
}

/** Classifies a next state the way the PRM prompt asks: progress, correction/redo, or ambiguous. */
export function classifyNextState(role: string, text: string, requestText: string | null = null): HeuristicVerdict {
  const trimmed = text.trim();
  if (TOOL_ROLES.has(role)) {
    if (!trimmed) return { value: 0, category: "ambiguous", cue: "the tool returned nothing" };
    const error = firstMatch(TOOL_ERROR, trimmed.replace(TOOL_NON_ERROR, ""));
    if (error) return { value: -1, category: "correction", cue: `the tool output reports an error ("${error}")` };
    return { value: 1, category: "progress", cue: "a successful tool result (no error reported)" };
  }
  const lower = trimmed.toLowerCase().replace(/[’‘]/g, "'");
  if (!lower) return { value: 0, category: "ambiguous", cue: "the reply is empty" };
  if (CORRECTION_START.test(lower) && !NOT_A_CORRECTION_START.test(lower)) {
    return {
      value: -1,
      category: "correction",
      cue: `the reply opens with "${firstMatch(CORRECTION_START, lower)}" (a correction)`,
    };
  }
  const negatives: [RegExp, string][] = [
    [CORRECTION, "a correction"],
    [REDO, "a redo/retry request"],
    [REPHRASE, "a rephrased request"],
    [CHANGE, "a change request"],
  ];
  for (const [re, what] of negatives) {
    const cue = firstMatch(re, lower);
    if (cue) return { value: -1, category: "correction", cue: `"${cue}" signals ${what}` };
  }
  if (restatesRequest(lower, requestText))
    return { value: -1, category: "correction", cue: "the reply restates the original request" };
  const approval = firstMatch(APPROVAL, lower);
  if (approval) return { value: 1, category: "progress", cue: `"${approval}" signals approval` };
  return { value: 0, category: "ambiguous", cue: "no approval, correction or error cue" };
}

const LEADING_FILLER =
  /^\s*(no+|nope|nah|wrong|incorrect|not quite|actually|hmm+|well|ok(ay)?|sorry|that'?s not what i (asked|wanted|meant))\b[\s,.!:;—–-]*/i;
const COURTESY = /\b(please|pls|thanks|thank you)\b/gi;
const STYLE_WORDS = /^(shorter|longer|briefer|simpler|clearer|more \w+|less \w+)$/i;
/** "that doesn't answer my question: ‹question›": the hint is the question the reply failed to answer. */
const UNANSWERED = /^that (?:doesn'?t|does not|didn'?t|did not) answer (?:my|the) question\s*[:—–-]\s*(\S.*)$/i;
const REDO_ONLY =
  /^(try again|retry|redo|do it again|start over|one more time|again|that didn'?t work|it didn'?t work|doesn'?t work|wrong|no|that (doesn'?t|does not|didn'?t) answer (my|the) question)$/i;

function toThirdPerson(text: string): string {
  return text
    .replace(/\bI'm\b/gi, "they are")
    .replace(/\bI am\b/gi, "they are")
    .replace(/\bI\b/gi, "they")
    .replace(/\bmyself\b/gi, "themselves")
    .replace(/\bmy\b/gi, "their")
    .replace(/\bme\b/gi, "them");
}

function sentence(text: string): string {
  const t = text.trim().replace(/[\s,;:—–-]+$/, "");
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

const CLAUSE_BREAK = /\s*[,;—–]\s*|\s+-\s+|(?<=[.!?])\s+/g;
const QUOTED = /"[^"]*"|“[^”]*”/g;

/**
 * Clauses of a reply, split at commas, dashes and sentence ends outside quotes: the text a user wants
 * verbatim ('end with "— Cheers!"') stays whole, dash and all.
 */
function splitClauses(text: string): string[] {
  const quotes: string[] = [];
  const masked = text.replace(QUOTED, (q) => `\u0000${quotes.push(q) - 1}\u0000`);
  return masked.split(CLAUSE_BREAK).map((c) => c.replace(/\u0000(\d+)\u0000/g, (_, i: string) => quotes[Number(i)]));
}

/**
 * A concrete hint from the instruction inside a user's correction, or null when the reply carries
 * no instruction (a bare "try again"). "no — shorter please, two sentences at most" becomes
 * "The user wants shorter answers: two sentences at most."; "no — that doesn't answer my question: How do I boil
 * an egg?" becomes "Answer the question the user asked: How do I boil an egg?" (without the question it is redo-only).
 */
export function deriveHint(text: string): string | null {
  let rest = text.trim();
  for (let prev = ""; prev !== rest;) {
    prev = rest;
    rest = rest.replace(LEADING_FILLER, "");
  }
  const unanswered = UNANSWERED.exec(rest);
  if (unanswered) return sentence(`Answer the question the user asked: ${unanswered[1].trim()}`);
  // A question mark ends the hint only when it ends the reply ("…a bullet list? one point per line" reads as one ask).
  const clauses = splitClauses(rest)
    .map((c) =>
      c
        .replace(COURTESY, "")
        .replace(/\s+/g, " ")
        .replace(/[.!]+$/, "")
        .trim(),
    )
    .filter((c) => c.length > 0)
    .map((c, i, all) => (i < all.length - 1 ? c.replace(/\?+$/, "") : c));
  if (clauses.length === 0 || (clauses.length === 1 && REDO_ONLY.test(clauses[0]))) return null;
  const [first, ...others] = clauses;
  let hint: string;
  if (STYLE_WORDS.test(first)) {
    const detail = others.length ? `: ${others.join(", ")}` : "";
    hint = sentence(`The user wants ${first.toLowerCase()} answers${detail}`);
  } else {
    const meant = /^(i meant|i said|i asked for|i wanted)\s+(.+)$/i.exec(clauses.join(", "));
    hint = meant
      ? sentence(`The user ${meant[1].slice(2).toLowerCase()} ${toThirdPerson(meant[2])}`)
      : sentence(`Follow the user's feedback: ${toThirdPerson(clauses.join(", "))}`);
  }
  return hint.length > 10 ? hint : null;
}

function render(task: JudgeTask): string {
  const verdict = classifyNextState(task.nextState.role, task.nextState.text, task.requestText);
  const head = [`${HEURISTIC_JUDGE_LABEL}.`, `Next state role: ${task.nextState.role}.`, `Cue: ${verdict.cue}.`];
  if (task.kind === "eval") {
    const label = { progress: "(a) progress", correction: "(b) correction/redo", ambiguous: "(c) ambiguous" }[
      verdict.category
    ];
    return [...head, `Classification: ${label}.`, `\\boxed{${verdict.value}}`].join("\n");
  }
  const isUser = !TOOL_ROLES.has(task.nextState.role);
  const hint = verdict.value === -1 && isUser ? deriveHint(task.nextState.text) : null;
  if (hint === null) {
    const why = isUser
      ? "The reply carries no concrete instruction to learn from."
      : "Tool output is not something the assistant could have known.";
    return [...head, why, "\\boxed{-1}"].join("\n");
  }
  return [...head, "The reply contains a concrete instruction.", "\\boxed{1}", `[HINT_START]${hint}[HINT_END]`].join(
    "\n",
  );
}

export function createHeuristicJudge(): JudgeBackend {
  return {
    kind: "heuristic",
    model: HEURISTIC_JUDGE_MODEL,
    endpoint: "embedded:heuristic",
    async complete(_messages, { task }) {
      if (!task) throw new Error("the heuristic judge needs the structured task");
      return render(task);
    },
  };
}
