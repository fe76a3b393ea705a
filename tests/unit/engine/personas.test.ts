import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../server/engine/rng";
import {
  getPersona,
  nextQuestion,
  PERSONAS,
  personaRng,
  preferredReply,
  QUESTIONS,
  questionsFor,
  renderReply,
  REPLY_STYLES,
  satisfiesPreference,
  SIGN_OFF,
} from "../../../server/simulation/personas";

const maya = getPersona("maya");
const leo = getPersona("leo");
const sam = getPersona("sam");
const ava = getPersona("ava");

describe("personas", () => {
  it("cover the four hidden preferences, each with questions, a correction and approvals", () => {
    expect(PERSONAS.map((p) => p.preference).sort()).toEqual(["bullets", "concise", "hints", "signoff"]);
    for (const p of PERSONAS) {
      expect(questionsFor(p).length).toBeGreaterThanOrEqual(6);
      expect(p.correction.length).toBeGreaterThan(10);
      expect(p.approvals.length).toBeGreaterThan(0);
    }
    expect(maya.correction).toBe("no — shorter please, two sentences at most");
    expect(new Set(QUESTIONS.map((q) => q.id)).size).toBe(QUESTIONS.length);
    expect(() => getPersona("nobody")).toThrow();
  });

  it("checks preferences on hand-written replies", () => {
    expect(satisfiesPreference(maya, "Boil it for 7 minutes. Then cool it.")).toBe(true);
    expect(satisfiesPreference(maya, "Boil it. Wait 7 minutes. Cool it.")).toBe(false); // three sentences
    expect(satisfiesPreference(maya, "x".repeat(161))).toBe(false);
    expect(satisfiesPreference(maya, "   ")).toBe(false);

    expect(satisfiesPreference(leo, "Steps:\n- Boil water\n- Add the egg")).toBe(true);
    expect(satisfiesPreference(leo, "1. Boil water\n2) Add the egg")).toBe(true);
    expect(satisfiesPreference(leo, "- Just one point")).toBe(false);
    expect(satisfiesPreference(leo, "Boil water, then add the egg.")).toBe(false);

    expect(satisfiesPreference(sam, "Hint: find 10% first.")).toBe(true);
    expect(satisfiesPreference(sam, "Hint: the answer is 12.")).toBe(false);
    expect(satisfiesPreference(sam, "The answer is 12.")).toBe(false);

    expect(satisfiesPreference(ava, `Sure thing.\n${SIGN_OFF}`)).toBe(true);
    expect(satisfiesPreference(ava, `${SIGN_OFF} Sure thing.`)).toBe(false);
  });

  it("renders every reply style, and the preferred reply satisfies its persona while others vary", () => {
    const q = QUESTIONS.find((x) => x.id === "percent")!;
    expect(renderReply(q, "hint")).toBe("Hint: find 10% first, then half of it for 5%.");
    expect(renderReply(q, "bullets", { rng: () => 0.99 })).toBe(
      "- 10% of 80 is 8.\n- 5% is half of that, so 4.\n- The answer is 12.",
    );
    expect(renderReply(q, "short", { rng: () => 0, signOff: true })).toBe(`10% of 80 is 8.\n${SIGN_OFF}`);
    for (const p of PERSONAS) {
      for (const question of questionsFor(p)) expect(satisfiesPreference(p, preferredReply(p, question))).toBe(true);
      // Some style of reply violates each preference, so there is something to learn.
      const styles = REPLY_STYLES.map((s) =>
        satisfiesPreference(p, renderReply(questionsFor(p)[0], s, { rng: mulberry32(1) })),
      );
      expect(styles).toContain(false);
    }
  });

  it("is reproducible for a seed", () => {
    const draw = (seed: number) => {
      const rng = personaRng(ava, seed);
      return Array.from({ length: 8 }, () => nextQuestion(ava, rng).id);
    };
    expect(draw(3)).toEqual(draw(3));
    expect(draw(3)).not.toEqual(draw(4));
    for (const id of draw(3)) expect(ava.topics).toContain(QUESTIONS.find((x) => x.id === id)!.topic);
  });
});
