// The three graders: persona (deterministic, the simulated user's own check), model judge against a rubric
// (m votes through an OpenAI-compatible server — the fake PRM server), and a custom module.
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAIJudgeBackend } from "../../../server/judge/core/backends";
import { loadCustomGrader } from "../../../server/evaluation/grader/custom";
import { createJudgeGrader, judgeGraderVersion } from "../../../server/evaluation/grader/judge";
import { createPersonaGrader } from "../../../server/evaluation/grader/persona";
import { GradeError, type GradeItem } from "../../../server/evaluation/grader/types";
import {
  getPersona,
  heldOutQuestionsFor,
  PERSONAS,
  preferredReply,
  questionsFor,
  renderReply,
} from "../../../server/simulation/personas";
import { startFakePrmServer, type FakePrmServer } from "../../fakes/prmServer";

const item = (over: Partial<GradeItem> = {}): GradeItem => ({
  key: "k",
  messages: [{ role: "user", content: "How do I unclog a sink?" }],
  reference: null,
  rubric: null,
  persona: null,
  ...over,
});

describe("held-out persona split", () => {
  it("is disjoint from every persona's training questions and covers each persona", () => {
    for (const p of PERSONAS) {
      const train = new Set(questionsFor(p).map((q) => q.id));
      const held = heldOutQuestionsFor(p);
      expect(held.length, p.id).toBeGreaterThanOrEqual(2);
      for (const q of held) expect(train.has(q.id), `${p.id}/${q.id}`).toBe(false);
    }
  });
});

describe("persona grader", () => {
  const g = createPersonaGrader();
  it("scores 1 exactly when the reply meets the persona's hidden preference and answers the item's question", async () => {
    const leo = getPersona("leo");
    const q = heldOutQuestionsFor(leo)[0]!;
    const asks = item({ persona: "leo", messages: [{ role: "user", content: q.text }] });
    expect((await g.grade(asks, preferredReply(leo, q))).score).toBe(1);
    expect((await g.grade(asks, renderReply(q, "long"))).score).toBe(0);
    expect(g.version).toBe("persona-v2");
  });
  it("refuses items without a known persona or a known question before any generation", () => {
    expect(g.cannotGrade(item())).toMatch(/names no persona/);
    expect(g.cannotGrade(item({ persona: "zed" }))).toMatch(/unknown persona "zed"/);
    expect(g.cannotGrade(item({ persona: "sam" }))).toBeNull();
    expect(g.cannotGrade(item({ persona: "sam", messages: [{ role: "user", content: "hi" }] }))).toMatch(
      /not one of the simulated users' questions/,
    );
  });
});

describe("model-judge grader", () => {
  let fake: FakePrmServer;
  beforeAll(async () => {
    fake = await startFakePrmServer();
  });
  afterAll(() => fake.close());

  it("sends the rubric, reference and reply, runs m votes and maps their mean to 0…1", async () => {
    const backend = createOpenAIJudgeBackend({ baseUrl: fake.url, model: "fake-prm" });
    const g = createJudgeGrader({ backend, votes: 3, temperature: 0.6, maxTokens: 64, retries: 0 });
    fake.push({ text: "fine \\boxed{1}" }, { text: "meh \\boxed{0}" }, { text: "good \\boxed{1}" });
    const before = fake.requests.length;
    const r = await g.grade(
      item({ rubric: "Uses a bullet list.", reference: "- plunger" }),
      "- boiling water\n- plunger",
    );
    // mean vote (1 + 0 + 1)/3 = 2/3 → (2/3 + 1)/2 = 5/6
    expect(r.score).toBeCloseTo(5 / 6, 12);
    const sent = fake.requests.slice(before).map((q) => JSON.stringify(q.body));
    expect(sent).toHaveLength(3);
    for (const s of sent) {
      expect(s).toContain("## Rubric\\nUses a bullet list.");
      expect(s).toContain("## Reference answer\\n- plunger");
      expect(s).toContain("## Assistant reply\\n- boiling water\\n- plunger");
    }
    expect(g.version).toBe(judgeGraderVersion({ kind: "openai", model: "fake-prm", votes: 3, temperature: 0.6 }));
  });

  it("fails the grade (not a zero) when no vote is valid", async () => {
    const backend = createOpenAIJudgeBackend({ baseUrl: fake.url, model: "fake-prm" });
    const g = createJudgeGrader({ backend, votes: 2, temperature: 0.6, maxTokens: 64, retries: 0 });
    fake.push({ text: "no box" }, { status: 400, body: "bad" });
    await expect(g.grade(item(), "x")).rejects.toBeInstanceOf(GradeError);
  });
});

describe("custom grader", () => {
  it("loads a module's default export, validates its result, and versions it by file", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "grader-"));
    const file = path.join(dir, "len.mjs");
    await writeFile(
      file,
      "export default async (item, reply) => ({ score: reply.length <= 10 ? 1 : 0, detail: { len: reply.length, key: item.key } });\n",
    );
    const g = await loadCustomGrader(path.basename(file), { dir });
    expect(await g.grade(item(), "short")).toEqual({ score: 1, detail: { len: 5, key: "k" } });
    expect((await g.grade(item(), "a much longer reply")).score).toBe(0);
    expect(g.version).toMatch(/^custom:len\.mjs@\d+-\d+$/);

    const bad = path.join(dir, "bad.mjs");
    await writeFile(bad, "export function grade() { return { score: 7 }; }\n");
    await expect((await loadCustomGrader("bad.mjs", { dir })).grade(item(), "x")).rejects.toThrow(/invalid result/);
    await expect(loadCustomGrader("missing.mjs", { dir })).rejects.toThrow(/not found/);
  });
});
