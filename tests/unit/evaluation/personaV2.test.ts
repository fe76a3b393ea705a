// persona-v2 and the simulated user's content check: a reply in the persona's style that answers another question
// is rejected — by the user, with a correction the heuristic judge turns into a hint, and by the grader — for every
// persona; the same style on the question asked is approved and scores 1.
import { describe, expect, it } from "vitest";
import { createPersonaGrader } from "../../../server/evaluation/grader/persona";
import type { GradeItem } from "../../../server/evaluation/grader/types";
import { classifyNextState, deriveHint } from "../../../server/judge/core/heuristic";
import { mulberry32 } from "../../../server/engine/rng";
import { offTopicCorrection, reactionTo } from "../../../server/simulation/conversation";
import { checkReply, onTopic } from "../../../server/simulation/grader";
import {
  heldOutQuestionsFor,
  PERSONAS,
  preferredReply,
  QUESTIONS,
  renderReply,
  REPLY_STYLES,
  satisfiesPreference,
  type Persona,
  type Question,
} from "../../../server/simulation/personas";

const asks = (persona: Persona, q: Question): GradeItem => ({
  key: `${persona.id}/${q.id}`,
  messages: [{ role: "user", content: q.text }],
  reference: null,
  rubric: null,
  persona: persona.id,
});

/** A question of a topic the persona never asks about: its preferred reply is in style but off topic. */
const elsewhere = (persona: Persona) => QUESTIONS.find((q) => !persona.topics.includes(q.topic))!;

describe("persona-v2", () => {
  const grader = createPersonaGrader();

  it("rejects an off-topic reply in the persona's style and accepts an on-topic one, for every persona", async () => {
    for (const p of PERSONAS) {
      for (const q of heldOutQuestionsFor(p)) {
        const gamed = preferredReply(p, elsewhere(p));
        // persona-v1's rule (style only) passes it; persona-v2 does not.
        expect(satisfiesPreference(p, gamed), `${p.id}: ${gamed}`).toBe(true);
        const bad = await grader.grade(asks(p, q), gamed);
        expect(bad, `${p.id}/${q.id}: ${gamed}`).toMatchObject({ score: 0, detail: { style: true, onTopic: false } });
        const good = await grader.grade(asks(p, q), preferredReply(p, q));
        expect(good, `${p.id}/${q.id}`).toMatchObject({ score: 1, detail: { style: true, onTopic: true } });
        // on topic, wrong style: 0 as before
        const prose = await grader.grade(asks(p, q), renderReply(q, p.preference === "concise" ? "long" : "short"));
        expect(prose.score, `${p.id}/${q.id}`).toBe(0);
      }
    }
  });

  it("counts every rendering of a question's answer on topic for it, and almost never for another question", () => {
    let cross = 0;
    let pairs = 0;
    for (const q of QUESTIONS)
      for (const style of REPLY_STYLES)
        for (let seed = 0; seed < 4; seed++) {
          const reply = renderReply(q, style, { rng: mulberry32(seed) });
          expect(onTopic(q, reply), `${q.id}/${style}: ${reply}`).toBe(true);
          for (const other of QUESTIONS)
            if (other.id !== q.id) {
              pairs++;
              if (onTopic(other, reply)) cross++;
            }
        }
    // ties (e.g. "Put the egg in boiling water." shares as much with the sink's "Pour boiling water down") are rare
    expect(cross / pairs).toBeLessThan(0.001);
    expect(onTopic(QUESTIONS[0]!, "- a\n- b")).toBe(false);
  });
});

describe("the simulated user's reaction", () => {
  it("rejects an off-topic reply with its question, which the judge scores −1 and turns into a hint", () => {
    for (const p of PERSONAS) {
      const q = heldOutQuestionsFor(p)[0]!;
      const r = reactionTo(p, q, preferredReply(p, elsewhere(p)), mulberry32(1));
      expect(r).toEqual({ satisfied: false, text: offTopicCorrection(q) });
      expect(classifyNextState("user", r.text).value).toBe(-1);
      expect(deriveHint(r.text)).toBe(`Answer the question the user asked: ${q.text}`);
    }
    // without the question, the same words are a bare redo (no hint)
    expect(deriveHint("no — that doesn't answer my question")).toBeNull();
  });

  it("corrects the style of an on-topic reply and approves a reply in style and on topic", () => {
    for (const p of PERSONAS) {
      const q = heldOutQuestionsFor(p)[0]!;
      const wrongStyle = renderReply(q, p.preference === "concise" ? "long" : "short");
      expect(checkReply(p, q, wrongStyle)).toEqual({ style: false, onTopic: true, ok: false });
      const corrected = reactionTo(p, q, wrongStyle, mulberry32(2));
      expect(corrected.satisfied).toBe(false);
      expect(corrected.text).toMatch(/^no\b/);
      expect(corrected.text).not.toBe(offTopicCorrection(q));
      const approved = reactionTo(p, q, preferredReply(p, q), mulberry32(3));
      expect(approved.satisfied).toBe(true);
      expect(p.approvals).toContain(approved.text);
    }
  });
});
