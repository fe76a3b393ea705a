// The persona grader (persona-v2): 1 when the reply is in the simulated persona's style AND answers the item's
// question, else 0 — the same pure check the simulated user reacts to (server/simulation/grader.ts), so it is
// deterministic. persona-v1 scored the style alone, which a policy that learned the form and lost the content
// (GRPO's bullet lists of another question's facts) passed; the gate must not promote such a version.
import { checkReply, questionByText } from "../../simulation/grader";
import { getPersona, PERSONAS, type Question } from "../../simulation/personas";
import type { Grader, GradeItem } from "./types";

export const PERSONA_GRADER_VERSION = "persona-v2";

/** The question an item asks: its last user message, which must be one of the simulated users' questions. */
function itemQuestion(item: GradeItem): Question | null {
  const last = [...item.messages].reverse().find((m) => m.role === "user");
  return typeof last?.content === "string" ? questionByText(last.content) : null;
}

export function createPersonaGrader(): Grader {
  return {
    name: "persona",
    version: PERSONA_GRADER_VERSION,
    cannotGrade: (item) =>
      !item.persona
        ? `item "${item.key}" names no persona (the persona grader needs one)`
        : !PERSONAS.some((p) => p.id === item.persona)
          ? `item "${item.key}": unknown persona "${item.persona}"`
          : itemQuestion(item)
            ? null
            : `item "${item.key}": its last user message is not one of the simulated users' questions (the persona grader checks the reply answers it)`,
    async grade(item, reply) {
      const persona = getPersona(item.persona!);
      const check = checkReply(persona, itemQuestion(item)!, reply);
      return {
        score: check.ok ? 1 : 0,
        detail: { preference: persona.preference, style: check.style, onTopic: check.onTopic },
      };
    },
  };
}
