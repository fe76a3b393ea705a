// What a simulated user checks in a reply, and what the persona grader (persona-v2) scores: the persona's style
// (personas.ts satisfiesPreference) AND the content of the question asked. Style alone is gameable — a policy can
// learn a preference's form and lose the content (a bullet list of another question's facts, "— Cheers!" after
// babble) and still be approved — so the user rejects an off-topic reply too, and the grader counts it a failure.
import { QUESTIONS, satisfiesPreference, type Persona, type Question } from "./personas";

const TOPIC_STOPWORDS = new Set([
  "hint",
  "think",
  "about",
  "that",
  "this",
  "with",
  "your",
  "what",
  "them",
  "they",
  "first",
  "when",
  "then",
  "cheers",
  "more",
  "less",
  "before",
  "after",
]);

function contentWords(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[a-z]{4,}|\d+/g) ?? []).filter((w) => !TOPIC_STOPWORDS.has(w)));
}

function wordsOf(question: Question): Set<string> {
  return contentWords([...question.facts, question.hint].join(" "));
}

function shared(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const w of a) if (b.has(w)) n++;
  return n;
}

/**
 * Does the reply answer the question asked? It must share at least two content words (numbers included) with that
 * question's facts or hint — or carry every content word of its hint, for a hint as short as "pay yourself first" —
 * and no fewer than with any other question's: a memorised answer to another question (the cheapest way to a
 * well-formed reply) is off topic even when it happens to share two words with this one.
 */
export function onTopic(question: Question, replyText: string): boolean {
  const reply = contentWords(replyText);
  const own = shared(reply, wordsOf(question));
  const hint = contentWords(question.hint);
  if (own < 2 && !(hint.size > 0 && shared(reply, hint) === hint.size)) return false;
  return QUESTIONS.every((other) => other.id === question.id || shared(reply, wordsOf(other)) <= own);
}

export interface ReplyCheck {
  /** the persona's hidden preference is met */
  style: boolean;
  /** the reply answers the question asked */
  onTopic: boolean;
  /** both: what the user approves and what persona-v2 scores 1 */
  ok: boolean;
}

/** The user's (and persona-v2's) check of a reply to `question`. Pure and deterministic. */
export function checkReply(persona: Persona, question: Question, replyText: string): ReplyCheck {
  const style = satisfiesPreference(persona, replyText);
  const topical = onTopic(question, replyText);
  return { style, onTopic: topical, ok: style && topical };
}

/** The simulated users' question whose text this is (case and surrounding space ignored), or null. */
export function questionByText(text: string): Question | null {
  const t = text.trim().toLowerCase();
  return QUESTIONS.find((q) => q.text.toLowerCase() === t) ?? null;
}
