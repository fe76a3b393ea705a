// The simulated user's script (no database): how personas react, what the judge makes of it, determinism under a
// seed, the turn limit and session end, tool calls, and the runner's rate and concurrency.
import { describe, expect, it } from "vitest";
import { classifyNextState, deriveHint } from "../../../server/judge/core/heuristic";
import {
  getPersona,
  PERSONAS,
  preferredReply,
  QUESTIONS,
  STYLE_INSTRUCTIONS,
} from "../../../server/simulation/personas";
import {
  approvalWithQuestion,
  CLOSING_MAX_TOKENS,
  conversationRng,
  correctionFor,
  runConversation,
  TOOL_LOOKUP_RATE,
  type ChatFn,
  type ChatReply,
  type ChatRequest,
} from "../../../server/simulation/conversation";
import { conversationPlan, ExperimentSimulation } from "../../../server/simulation/runner";
import type { SimulationSettings } from "../../../server/simulation/schemas";

const BAD = "Sure. Here is a long paragraph that answers the question in prose with no list at all. Hope that helps.";

/** Replies from a script (index = request number); records every request. */
function scripted(replies: (req: ChatRequest, i: number) => string | ChatReply): {
  chat: ChatFn;
  requests: ChatRequest[];
} {
  const requests: ChatRequest[] = [];
  return {
    requests,
    chat: async (req) => {
      requests.push(structuredClone(req));
      const r = replies(req, requests.length - 1);
      return typeof r === "string" ? { content: r, toolCalls: [] } : r;
    },
  };
}

const lastText = (req: ChatRequest) => {
  const m = req.messages.at(-1)!;
  return typeof m.content === "string" ? m.content : "";
};

describe("persona reactions and the heuristic judge", () => {
  it("every correction a persona gives is judged −1 and carries a hint", () => {
    for (const p of PERSONAS) {
      const variants = 1 + STYLE_INSTRUCTIONS[p.preference].length;
      for (let i = 0; i < variants; i++) {
        const text = correctionFor(p, () => (i + 0.5) / variants);
        expect(text, p.id).toMatch(/^no\b/);
        expect(classifyNextState("user", text).value, text).toBe(-1);
        expect(deriveHint(text), text).not.toBeNull();
      }
    }
  });

  it("an approval with the next question is never judged a correction (and is +1 whenever the approval alone is)", () => {
    for (const p of PERSONAS) {
      for (const a of p.approvals) {
        const alone = classifyNextState("user", a).value;
        for (const q of QUESTIONS)
          expect(
            classifyNextState("user", approvalWithQuestion(a, q), "How do I do this?").value,
            `${a} / ${q.id}`,
          ).toBe(alone);
        expect(alone).toBeGreaterThanOrEqual(0);
      }
    }
  });
});

describe("a conversation", () => {
  const leo = getPersona("leo");

  it("corrects a reply that misses the preference, approves one that meets it, and closes the session on the last message", async () => {
    // Leo gets prose first, then bullet lists for everything: the correction is the next state of reply 1.
    const { chat, requests } = scripted((req, i) =>
      i === 0 ? BAD : preferredReply(leo, QUESTIONS.find((q) => lastText(req).includes(q.text)) ?? QUESTIONS[0]),
    );
    const r = await runConversation({ persona: leo, rng: conversationRng(3, 0), chat, maxTurns: 4 });
    expect(r.events[0]).toMatchObject({ kind: "reply", satisfied: false });
    expect(lastText(requests[1])).toBe(r.events[0].reaction);
    expect(classifyNextState("user", lastText(requests[1])).value).toBe(-1);
    expect(r.events.slice(1).every((e) => e.satisfied)).toBe(true);
    // Only the closing request says done, and it asks for a short answer.
    expect(requests.map((q) => q.done)).toEqual([...requests.slice(1).map(() => false), true]);
    expect(requests.at(-1)!.maxTokens).toBe(CLOSING_MAX_TOKENS);
    expect(r.replies).toBe(requests.length - 1);
    // Every request carries the whole conversation so far.
    for (let i = 1; i < requests.length; i++)
      expect(requests[i].messages.slice(0, requests[i - 1].messages.length)).toEqual(requests[i - 1].messages);
  });

  it("is reproducible: the same seed gives the same requests, another seed other ones", async () => {
    const run = async (seed: number) => {
      const { chat, requests } = scripted((_req, i) => (i % 2 ? BAD : "- a\n- b"));
      await runConversation({ persona: leo, rng: conversationRng(seed, 5), chat, maxTurns: 4 });
      return requests;
    };
    const a = await run(11);
    expect(await run(11)).toEqual(a);
    expect(await run(12)).not.toEqual(a);
  });

  it("gives up after maxTurns unsatisfying replies, closing with a correction", async () => {
    const { chat, requests } = scripted(() => BAD);
    const r = await runConversation({ persona: leo, rng: conversationRng(1, 1), chat, maxTurns: 3 });
    expect(r).toMatchObject({ replies: 3, satisfied: 0, corrections: 3 });
    expect(requests).toHaveLength(4);
    expect(requests[3].done).toBe(true);
    expect(classifyNextState("user", lastText(requests[3])).value).toBe(-1);
  });

  it("answers the model's own tool call with the tool's result and lets it continue", async () => {
    const call = {
      id: "call_1",
      type: "function" as const,
      function: { name: "lookup_notes", arguments: '{"topic":"cooking"}' },
    };
    const { chat, requests } = scripted((_req, i) =>
      i === 0 ? { content: "", toolCalls: [call] } : "- done\n- thanks",
    );
    const r = await runConversation({ persona: leo, rng: conversationRng(2, 2), chat, maxTurns: 4 });
    const tool = requests[1].messages.at(-1)!;
    expect(tool).toMatchObject({ role: "tool", tool_call_id: "call_1" });
    expect(requests[1].messages.at(-2)).toMatchObject({ role: "assistant", tool_calls: [call] });
    expect(requests[1].tools?.[0].function.name).toBe("lookup_notes");
    expect(r.toolCalls).toBeGreaterThanOrEqual(1);
  });

  it("some conversations open with the agent runtime's note lookup in context", async () => {
    const plans = Array.from({ length: 200 }, (_, k) => k);
    let withLookup = 0;
    for (const k of plans) {
      const { chat, requests } = scripted(() => "- a\n- b");
      const { persona, rng } = conversationPlan({ ...SETTINGS, personas: ["leo"] }, k, "t");
      await runConversation({ persona, rng, chat, maxTurns: 1 });
      const first = requests[0].messages;
      if (first.length > 1) {
        withLookup++;
        expect(first[1]).toMatchObject({
          role: "assistant",
          content: null,
          tool_calls: [{ function: { name: "lookup_notes" } }],
        });
        const result = JSON.parse((first[2] as { content: string }).content) as { notes: string[] };
        const question = QUESTIONS.find((q) => q.text === first[0].content)!;
        expect(result.notes).toEqual(question.facts);
      }
    }
    // A seeded Bernoulli(TOOL_LOOKUP_RATE) over 200 conversations: well inside (0, 200).
    expect(withLookup).toBeGreaterThan(200 * TOOL_LOOKUP_RATE * 0.4);
    expect(withLookup).toBeLessThan(200 * TOOL_LOOKUP_RATE * 2);
  });
});

const SETTINGS: SimulationSettings = { perMinute: 6, concurrency: 2, personas: ["maya", "leo"], seed: 5, maxTurns: 2 };

describe("the runner", () => {
  const flush = () => new Promise((r) => setTimeout(r, 0));

  it("starts conversations at the rate, never more than `concurrency` at once, in seed order", async () => {
    let now = 0;
    const started: string[] = [];
    const gates: (() => void)[] = [];
    const sim = new ExperimentSimulation(
      "e1",
      SETTINGS,
      (conv) => {
        started.push(conv.sessionId);
        return () =>
          new Promise<ChatReply>((resolve, reject) => {
            gates.push(() => resolve({ content: "- a\n- b", toolCalls: [] }));
            conv.signal.addEventListener("abort", () => reject(new Error("aborted")));
          });
      },
      "n",
      undefined,
      () => now,
    );
    sim.tick();
    expect(sim.activeCount).toBe(1); // one credit at start
    now += 5_000;
    sim.tick();
    expect(sim.activeCount).toBe(1); // 6/min: the next is due after 10 s
    now += 5_000;
    sim.tick();
    expect(sim.activeCount).toBe(2);
    now += 60_000;
    sim.tick();
    expect(sim.activeCount).toBe(2); // concurrency 2, though credit accrued
    expect(started.map((s) => s.split("-").at(-1))).toEqual(["0", "1"]);
    expect(started[0]).toBe(`sim-${conversationPlan(SETTINGS, 0, "n").persona.id}-n-0`);
    while (sim.activeCount) {
      gates.shift()?.();
      await flush();
    }
    sim.tick();
    expect(sim.activeCount).toBe(2); // the credit (capped at concurrency) starts two at once
    expect(sim.stats()).toMatchObject({ experimentId: "e1", sessions: 4, active: 2, errors: 0 });
    await sim.stop();
  });

  it("counts failed conversations and backs off before starting new ones", async () => {
    let now = 0;
    const sim = new ExperimentSimulation(
      "e2",
      { ...SETTINGS, perMinute: 600, concurrency: 1 },
      () => async () => {
        throw new Error("connect ECONNREFUSED");
      },
      "n",
      undefined,
      () => now,
    );
    sim.tick();
    await flush();
    expect(sim.stats()).toMatchObject({ errors: 1, lastError: "connect ECONNREFUSED", active: 0 });
    now += 500;
    sim.tick();
    expect(sim.activeCount).toBe(0); // backing off for 1 s after the first failure
    now += 600;
    sim.tick();
    await flush();
    expect(sim.stats().errors).toBe(2);
    await sim.stop();
  });

  it("personas are drawn from the configured ones", () => {
    const seen = new Set<string>();
    for (let k = 0; k < 50; k++) seen.add(conversationPlan(SETTINGS, k, "n").persona.id);
    expect([...seen].sort()).toEqual(["leo", "maya"]);
  });
});
