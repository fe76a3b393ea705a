// Whole-message prompt fitting (server/engine/fit.ts): which messages survive a budget, and that the trainer
// finds the prompt the engine served from its recorded length alone.
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { EmbeddedEngine } from "../../../server/engine/engine";
import { fitCandidates, fitChat, servedPrompt, servingBudget } from "../../../server/engine/fit";
import { saveCheckpoint } from "../../../server/engine/checkpoint";
import { decode, renderChat, type ChatMessage, type ToolDef } from "../../../server/engine/tokenizer";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { microModel } from "./helpers";

const tools: ToolDef[] = [
  {
    type: "function",
    function: { name: "lookup_notes", description: "Look up notes", parameters: { type: "object" } },
  },
];
const chat: ChatMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "How do I boil an egg?" },
  { role: "assistant", content: "Put it in boiling water for seven minutes, then cool it." },
  { role: "user", content: "no — use a bullet list." },
  { role: "assistant", content: "- Boil water.\n- Cook seven minutes." },
  { role: "user", content: "thanks. Next question: How do I cook rice?" },
];
const gen = { addGenerationPrompt: true } as const;
const text = (ids: number[]) => decode(ids, { keepSpecials: true });
const len = (msgs: ChatMessage[], opts: { tools?: ToolDef[] } = {}) => renderChat(msgs, { ...gen, ...opts }).length;

describe("fitChat", () => {
  it("keeps every message when they fit", () => {
    expect(fitChat(chat, 10_000, { ...gen, tools })).toEqual(renderChat(chat, { ...gen, tools }));
  });

  it("drops the system message (and the tools in it) before any exchange", () => {
    const budget = len(chat.slice(1)) + 1;
    expect(fitChat(chat, budget, { ...gen, tools })).toEqual(renderChat(chat.slice(1), gen));
  });

  it("then drops the oldest exchange, keeping the system message when it fits", () => {
    const kept: ChatMessage[] = [chat[0]!, ...chat.slice(3)];
    const out = fitChat(chat, len(kept), gen);
    expect(out).toEqual(renderChat(kept, gen));
    expect(text(out)).not.toContain("boil an egg");
    expect(text(out)).toContain("use a bullet list");
  });

  it("keeps the last user message on, and cuts it from the left only when nothing else fits", () => {
    const last = renderChat(chat.slice(5), gen);
    expect(fitChat(chat, last.length, gen)).toEqual(last);
    expect(fitChat(chat, 10, gen)).toEqual(last.slice(last.length - 10));
    expect(() => fitChat(chat, 0, gen)).toThrow(/budget/);
  });

  it("keeps a tool call and its result with the user message they follow", () => {
    const withTool: ChatMessage[] = [
      { role: "user", content: "How do I boil an egg?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c0", type: "function", function: { name: "lookup_notes", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c0", content: '{"notes":["7 minutes"]}' },
    ];
    const out = fitChat(withTool, len(withTool), { ...gen, tools });
    expect(out).toEqual(renderChat(withTool, gen));
  });

  it("gives candidates without the system message that are suffixes of the full rendering", () => {
    const [full, ...rest] = fitCandidates(chat, { ...gen, tools });
    const suffixes = rest.filter((c) => !text(c).includes("<|system|>"));
    expect(suffixes).toHaveLength(3);
    for (const c of suffixes) expect(full!.slice(full!.length - c.length)).toEqual(c);
  });
});

describe("servedPrompt", () => {
  it("finds the candidate the engine chose from its length, and a left cut otherwise", () => {
    for (const budget of [10_000, len(chat.slice(1)), len([chat[0]!, ...chat.slice(3)]), 30, 12]) {
      const served = fitChat(chat, budget, { ...gen, tools });
      expect(servedPrompt(chat, served.length, { ...gen, tools })).toEqual(served);
    }
    expect(servedPrompt(chat, null, gen)).toEqual(renderChat(chat, gen));
  });
});

describe("the engine fits by whole messages", () => {
  beforeAll(async () => {
    await initBackend();
  });

  it("serves and scores a long conversation from its latest exchanges", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "fit-engine-"));
    const ctx = 96;
    await saveCheckpoint(dir, microModel(3, 1, { vocabSize: 262, ctx, nLayer: 1, nEmbd: 16, nHead: 2 }), {
      version: 0,
      step: 0,
    });
    const engine = new EmbeddedEngine();
    await engine.load(dir);
    const r = await engine.chat(chat, { maxTokens: 8, temperature: 1, seed: 3 });
    expect(r.promptIds).toEqual(fitChat(chat, servingBudget(ctx, 8), gen));
    expect(text(r.promptIds)).toMatch(/^<\|(system|user)\|>/);
    const scored = await engine.scoreChat(chat, r.tokenIds);
    expect(scored.promptIds).toEqual(fitChat(chat, ctx - r.tokenIds.length, gen));
    engine.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  });
});
