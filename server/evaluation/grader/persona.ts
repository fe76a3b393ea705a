// The persona grader: 1 when the simulated persona would approve the reply, else 0 — the same pure check the
// simulated user reacts to (server/simulation/personas.ts verdictOf: the hidden preference, then whether the reply
// answers the question), so it is deterministic. The question is the item's last user message when it is one of
// the personas' questions; for any other prompt only the preference can be checked (detail.onTopic is null).
import { getPersona, PERSONAS, QUESTIONS, satisfiesPreference, verdictOf } from "../../simulation/personas";
import type { GradeItem, Grader } from "./types";

export const PERSONA_GRADER_VERSION = "persona-v2";

function questionOf(item: GradeItem) {
  const text = [...item.messages].reverse().find((m) => m.role === "user")?.content;
  return typeof text === "string" ? QUESTIONS.find((q) => q.text === text.trim()) ?? null : null;
}

export function createPersonaGrader(): Grader {
  return {
    name: "persona",
    version: PERSONA_GRADER_VERSION,
    cannotGrade: (item) =>
      !item.persona ? `item "${item.key}" names no persona (the persona grader needs one)` : PERSONAS.some((p) => p.id === item.persona) ? null : `item "${item.key}": unknown persona "${item.persona}"`,
    async grade(item, reply) {
      const persona = getPersona(item.persona!);
      const question = questionOf(item);
      if (!question) return { score: satisfiesPreference(persona, reply) ? 1 : 0, detail: { preference: persona.preference, onTopic: null } };
      const verdict = verdictOf(persona, question, reply);
      return { score: verdict === "approved" ? 1 : 0, detail: { preference: persona.preference, verdict } };
    },
  };
}
