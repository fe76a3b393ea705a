// The persona grader: 1 when the reply respects the simulated persona's hidden preference, else 0 — the same
// pure check the simulated user reacts to (server/simulation/personas.ts), so it is deterministic.
import { getPersona, PERSONAS, satisfiesPreference } from "../../simulation/personas";
import type { Grader } from "./types";

export const PERSONA_GRADER_VERSION = "persona-v1";

export function createPersonaGrader(): Grader {
  return {
    name: "persona",
    version: PERSONA_GRADER_VERSION,
    cannotGrade: (item) =>
      !item.persona
        ? `item "${item.key}" names no persona (the persona grader needs one)`
        : PERSONAS.some((p) => p.id === item.persona)
          ? null
          : `item "${item.key}": unknown persona "${item.persona}"`,
    async grade(item, reply) {
      const persona = getPersona(item.persona!);
      const ok = satisfiesPreference(persona, reply);
      return { score: ok ? 1 : 0, detail: { preference: persona.preference } };
    },
  };
}
