// The persona grader's content check, beside its preference check (personas.ts satisfiesPreference): a policy
// can learn a preference's form and lose the content (a bare "- " list, "— Cheers!" after babble), and a learning
// claim has to show it did not.
import type { Question } from "./personas";

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
  return new Set((text.toLowerCase().match(/[a-z]{4,}/g) ?? []).filter((w) => !TOPIC_STOPWORDS.has(w)));
}

/**
 * The persona's grader for content: does the reply talk about the question asked (at least two of the content
 * words of its facts or hint)? A policy that learned the preference's form and dropped the content (a bare "- ",
 * "— Cheers!" after babble) fails it.
 */
export function onTopic(question: Question, replyText: string): boolean {
  const own = contentWords([...question.facts, question.hint].join(" "));
  let shared = 0;
  for (const w of contentWords(replyText)) if (own.has(w) && ++shared >= 2) return true;
  return false;
}
