import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createOpenAIJudgeBackend } from "../../../server/judge/core/backends";
import { loadCustomReward } from "../../../server/judge/core/customReward";
import { createHeuristicJudge } from "../../../server/judge/core/heuristic";
import { judgeTurn, judgeVersion, type JudgeTurnDeps, type JudgeTurnInput } from "../../../server/judge/core/judgeTurn";
import { PROMPT_VERSION } from "../../../server/judge/core/prompts";
import { BreakerRegistry, Limiter } from "../../../server/judge/core/resilience";
import {
  JudgeSettingsSchema,
  JudgmentResultSchema,
  type ChatMessage,
  type JudgeSettingsInput,
} from "../../../server/judge/core/schemas";
import { hintedTeacherMessages } from "../../../server/judge/core/teacher";
import { createSglangTeacher, renderChatML } from "../../../server/judge/core/teacherClients";
import {
  fakeLogprob,
  fakeTokenize,
  startFakePrmServer,
  type FakePrmServer,
  type FakeReply,
} from "../../fakes/prmServer";

let fake: FakePrmServer;
let evalReplies: FakeReply[];
let hintReplies: FakeReply[];

beforeAll(async () => {
  fake = await startFakePrmServer();
  // Route by prompt: the hint judge's system prompt mentions hindsight; votes are served in arrival order.
  fake.setChatHandler((body) => {
    const isHint = body.messages[0].content.includes("hindsight");
    return (isHint ? hintReplies : evalReplies).shift() ?? { status: 500, body: "script exhausted" };
  });
});
afterAll(() => fake.close());
beforeEach(() => {
  evalReplies = [];
  hintReplies = [];
  fake.requests.length = 0;
});

const messages: ChatMessage[] = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "What is the capital of France?" },
];
const responseIds = fakeTokenize("Paris is the capital of France.");
const turn = (over: Partial<JudgeTurnInput> = {}): JudgeTurnInput => ({
  method: "grpo",
  messages,
  response: { text: "Paris is the capital of France.", tokenIds: responseIds },
  nextState: { role: "user", content: "thanks!" },
  ...over,
});

function deps(settings: JudgeSettingsInput = {}, extra: Partial<JudgeTurnDeps> = {}): JudgeTurnDeps {
  return {
    // Concurrency 1 makes arrival order = vote order (eval0, hint0, eval1, …), so scripts map to indices.
    settings: JudgeSettingsSchema.parse({
      kind: "openai",
      baseUrl: fake.url,
      model: "prm",
      retries: 0,
      concurrency: 1,
      ...settings,
    }),
    backend: createOpenAIJudgeBackend({ baseUrl: fake.url, model: "prm" }),
    teacher: createSglangTeacher({ baseUrl: fake.url }),
    sleep: async () => {},
    random: () => 0,
    ...extra,
  };
}

const boxed = (v: number, hint?: string): FakeReply => ({
  text: `Step by step… \\boxed{${v}}${hint === undefined ? "" : `\n[HINT_START]${hint}[HINT_END]`}`,
});
const chatCalls = () => fake.requests.filter((r) => r.path === "/v1/chat/completions").length;
/** Scoring calls (token ids); the teacher also tokenizes its context through /generate with `text`. */
const teacherCalls = () =>
  fake.requests.filter((r) => r.path === "/generate" && "input_ids" in (r.body as object)).length;

/** Teacher log-probs the fake model gives the response after the hinted, ChatML-rendered context. */
function expectedTeacher(hint: string): number[] {
  const prompt = fakeTokenize(renderChatML(hintedTeacherMessages(messages, hint)));
  const all = [...prompt, ...responseIds];
  return responseIds.map((id, k) => fakeLogprob(all[prompt.length + k - 1], id));
}

describe("judgeTurn — PRM (grpo)", () => {
  it("a clear majority becomes the reward", async () => {
    evalReplies = [boxed(1), boxed(1), boxed(-1)];
    const r = await judgeTurn(turn(), deps());
    expect(JudgmentResultSchema.parse(r)).toEqual(r);
    expect(r.votes.map((v) => [v.kind, v.index, v.value, v.error])).toEqual([
      ["eval", 0, 1, null],
      ["eval", 1, 1, null],
      ["eval", 2, -1, null],
    ]);
    expect([r.score, r.evalScore]).toEqual([1, 1 / 3]);
    expect(r.dispatch).toEqual({ kind: "RL", reward: 1, excluded: false, excludeReason: null });
    expect([r.hint, r.hintAccepted, r.teacherLogprobs, r.judgeKind, r.model, r.promptVersion]).toEqual([
      null,
      false,
      null,
      "openai",
      "prm",
      PROMPT_VERSION,
    ]);
    expect(chatCalls()).toBe(3);
  });

  it("a tie (with one garbage answer dropped) gives 0 and excludes the turn", async () => {
    evalReplies = [boxed(1), { text: "I cannot decide." }, boxed(-1)];
    const r = await judgeTurn(turn(), deps());
    expect(r.votes.map((v) => v.value)).toEqual([1, null, -1]);
    expect(r.votes[1]).toMatchObject({ raw: "I cannot decide.", error: "unparsable answer" });
    expect([r.score, r.evalScore]).toEqual([0, 0]);
    expect(r.dispatch).toEqual({ kind: "RL", reward: 0, excluded: true, excludeReason: "zero_score" });
  });

  it("retries a 503, does not retry a 400, and counts what survives", async () => {
    evalReplies = [{ status: 503 }, boxed(-1), boxed(-1), { status: 400 }];
    const r = await judgeTurn(turn(), deps({ retries: 1 }));
    expect(r.votes.map((v) => [v.value, v.error])).toEqual([
      [-1, null],
      [-1, null],
      [null, "http 400"],
    ]);
    expect([r.score, r.evalScore]).toEqual([-1, -1]);
    expect(chatCalls()).toBe(4);
  });

  it("a vote that times out is dropped", async () => {
    evalReplies = [{ ...boxed(-1), delayMs: 5_000 }, boxed(1), boxed(1)];
    const r = await judgeTurn(turn(), deps({ timeoutMs: 100 }));
    expect(r.votes.map((v) => [v.value, v.error])).toEqual([
      [null, "timeout after 100 ms"],
      [1, null],
      [1, null],
    ]);
    expect(r.score).toBe(1);
  });

  it("no valid vote gives 0 and a null eval score", async () => {
    evalReplies = [{ status: 500 }, { raw: "{not json" }, { raw: JSON.stringify({ choices: [] }) }];
    const r = await judgeTurn(turn(), deps());
    expect(r.votes.map((v) => v.value)).toEqual([null, null, null]);
    expect(r.votes.map((v) => v.error?.split(":")[0])).toEqual(["http 500", "BadResponseError", "BadResponseError"]);
    expect([r.score, r.evalScore, r.dispatch.excludeReason]).toEqual([0, null, "zero_score"]);
  });

  it("a turn without next state is excluded without calling the judge", async () => {
    const r = await judgeTurn(turn({ nextState: null }), deps());
    expect([r.votes, r.score, r.evalScore]).toEqual([[], 0, null]);
    expect(r.dispatch).toEqual({ kind: "RL", reward: 0, excluded: true, excludeReason: "no_next_state" });
    expect(fake.requests).toHaveLength(0);
  });

  it("shows the judge the request only when includeRequest is on", async () => {
    evalReplies = [boxed(1)];
    await judgeTurn(turn(), deps({ m: 1 }));
    evalReplies = [boxed(1)];
    await judgeTurn(turn(), deps({ m: 1, includeRequest: true }));
    const [off, on] = fake.requests.map((r) => (r.body as { messages: { content: string }[] }).messages[1].content);
    expect(off).not.toContain("What is the capital of France?");
    expect(on).toContain("## Original request\nWhat is the capital of France?");
    expect(on).toContain("## Next state [role: user]\nthanks!");
  });
});

describe("judgeTurn — OPD and combine", () => {
  const HINT = "Answer with the city name only, no full sentence.";

  it("combine: accepted hint + eval ±1 → BOTH with teacher log-probs and reward = eval", async () => {
    evalReplies = [boxed(-1), boxed(-1), boxed(0)];
    hintReplies = [boxed(1, "too short"), boxed(1, HINT), boxed(-1)];
    const r = await judgeTurn(
      turn({ method: "combine", nextState: { role: "user", content: "just the city name" } }),
      deps(),
    );
    expect(r.votes.map((v) => `${v.kind}${v.index}:${v.value}`)).toEqual([
      "eval0:-1",
      "hint0:1",
      "eval1:-1",
      "hint1:1",
      "eval2:0",
      "hint2:-1",
    ]);
    expect(r.votes[1].hint).toBe("too short");
    expect([r.score, r.evalScore, r.hint, r.hintAccepted]).toEqual([-1, -2 / 3, HINT, true]);
    expect(r.teacherLogprobs).toEqual(expectedTeacher(HINT));
    // Which rendering produced the teacher context travels with the judgment.
    expect(r.settings.teacherTemplate).toBe("chatml");
    expect(r.teacherLogprobs).toHaveLength(responseIds.length);
    expect(r.dispatch).toEqual({ kind: "BOTH", reward: -1, excluded: false, excludeReason: null });
  });

  it("combine: hint only → OPD with reward 0", async () => {
    evalReplies = [boxed(1), boxed(-1), { text: "?" }];
    hintReplies = [boxed(1, HINT), boxed(-1), boxed(-1)];
    const r = await judgeTurn(turn({ method: "combine" }), deps());
    expect(r.dispatch).toEqual({ kind: "OPD", reward: 0, excluded: false, excludeReason: null });
    expect(teacherCalls()).toBe(1);
  });

  it("combine: no acceptable hint → RL from the eval votes, teacher never called", async () => {
    evalReplies = [boxed(1), boxed(1), boxed(1)];
    hintReplies = [boxed(-1), boxed(1, "0123456789"), boxed(1)];
    const r = await judgeTurn(turn({ method: "combine" }), deps());
    expect([r.hint, r.hintAccepted, r.teacherLogprobs]).toEqual([null, false, null]);
    expect(r.dispatch).toEqual({ kind: "RL", reward: 1, excluded: false, excludeReason: null });
    expect(teacherCalls()).toBe(0);
  });

  it("grpo asked for hints (a per-user experiment's adapters): hint votes run, the hint is kept, reward stays RL", async () => {
    evalReplies = [boxed(-1), boxed(-1), boxed(1)];
    hintReplies = [boxed(1, HINT), boxed(1, HINT), boxed(-1)];
    const r = await judgeTurn(turn({ method: "grpo", hints: true }), deps());
    expect([r.score, r.hint, r.hintAccepted, r.teacherLogprobs, r.teacherError]).toEqual([-1, HINT, true, null, null]);
    expect(r.dispatch).toEqual({ kind: "RL", reward: -1, excluded: false, excludeReason: null });
    expect(teacherCalls()).toBe(0);
    // Hints change what a GRPO judgment holds, so its version differs from a plain GRPO judge's.
    evalReplies = [boxed(-1), boxed(-1), boxed(1)];
    const plain = await judgeTurn(turn({ method: "grpo" }), deps());
    expect(plain.hint).toBeNull();
    expect(plain.votes.every((v) => v.kind === "eval")).toBe(true);
    expect(plain.judgeVersion).not.toBe(r.judgeVersion);
  });

  it("opd: eval votes are only a metric; an accepted hint gives an OPD sample", async () => {
    evalReplies = [boxed(-1), boxed(-1), boxed(1)];
    hintReplies = [boxed(1, HINT), boxed(1, HINT), boxed(1, HINT)];
    const r = await judgeTurn(turn({ method: "opd" }), deps());
    expect([r.score, r.evalScore]).toEqual([-1, -1 / 3]);
    expect(r.dispatch).toEqual({ kind: "OPD", reward: 0, excluded: false, excludeReason: null });
  });

  it("opd without eval mode runs only hint votes", async () => {
    hintReplies = [boxed(-1), boxed(-1), boxed(-1)];
    const r = await judgeTurn(turn({ method: "opd" }), deps({ evalMode: false }));
    expect(r.votes.every((v) => v.kind === "hint")).toBe(true);
    expect([r.evalScore, r.dispatch.excludeReason]).toEqual([null, "no_valid_hint"]);
    expect(chatCalls()).toBe(3);
  });

  it("hintM sets the hint calls apart from the eval votes (upstream's --hint-m; unset = m)", async () => {
    evalReplies = [boxed(1), boxed(1), boxed(1)];
    hintReplies = [boxed(1, "Short hint here."), boxed(1, HINT), boxed(1, "Another hint, longer than ten.")];
    const three = await judgeTurn(turn({ method: "combine" }), deps({ m: 1, hintM: 3 }));
    expect(three.votes.map((v) => `${v.kind}${v.index}`)).toEqual(["eval0", "hint0", "hint1", "hint2"]);
    expect(three.hint).toBe(HINT); // the longest of three candidates (reference selection)

    evalReplies = [boxed(1), boxed(1), boxed(1)];
    hintReplies = [boxed(1, HINT)];
    const one = await judgeTurn(turn({ method: "combine" }), deps({ m: 3, hintM: 1 }));
    expect(one.votes.filter((v) => v.kind === "hint")).toHaveLength(1);
    expect(one.votes.filter((v) => v.kind === "eval")).toHaveLength(3);
  });

  it("a failing teacher keeps the hint but produces no OPD sample, and says why", async () => {
    evalReplies = [boxed(0)];
    hintReplies = [boxed(1, HINT)];
    fake.pushNative("/generate", { status: 500 });
    const r = await judgeTurn(turn({ method: "opd" }), deps({ m: 1 }));
    expect([r.hintAccepted, r.teacherLogprobs, r.teacherError]).toEqual([true, null, "http 500"]);
    expect(r.dispatch).toEqual({ kind: null, reward: 0, excluded: true, excludeReason: "no_valid_hint" });
  });
});

describe("judgeTurn — breaker, version, embedded judges", () => {
  it("a shared breaker opens after repeated failures and recovers after the reset period", async () => {
    let t = 0;
    const shared = {
      breakers: new BreakerRegistry({ failureThreshold: 2, resetTimeoutMs: 1_000, now: () => t }),
      judgeLimiter: new Limiter(1),
    };
    evalReplies = [{ status: 503 }, { status: 503 }, boxed(1)];
    const first = await judgeTurn(turn(), deps({}, shared));
    expect(first.votes.map((v) => v.error)).toEqual(["http 503", "http 503", "circuit open"]);
    expect(chatCalls()).toBe(2);

    const stillOpen = await judgeTurn(turn(), deps({}, shared));
    expect(stillOpen.votes.map((v) => v.error)).toEqual(["circuit open", "circuit open", "circuit open"]);
    expect(chatCalls()).toBe(2);

    t = 1_000;
    evalReplies = [boxed(1), boxed(1), boxed(1)];
    const recovered = await judgeTurn(turn(), deps({}, shared));
    expect(recovered.votes.map((v) => v.value)).toEqual([1, 1, 1]);
    expect(chatCalls()).toBe(5);
  });

  it("judgeVersion is stable for equal settings and changes with any judging setting", () => {
    const base = {
      kind: "openai",
      model: "prm",
      promptVersion: PROMPT_VERSION,
      m: 3,
      temperature: 0.6,
      includeRequest: false,
      method: "grpo",
      evalMode: true,
    } as const;
    expect(judgeVersion(base)).toBe(judgeVersion({ ...base }));
    // hintM equal to m is the behaviour before the option: same version.
    expect(judgeVersion({ ...base, hintM: 3 })).toBe(judgeVersion(base));
    const variants = [
      { hintM: 1 },
      { m: 5 },
      { temperature: 1 },
      { includeRequest: true },
      { model: "other" },
      { kind: "heuristic" as const },
      { method: "opd" as const },
      { promptVersion: "x" },
    ];
    const versions = new Set([judgeVersion(base), ...variants.map((v) => judgeVersion({ ...base, ...v }))]);
    expect(versions.size).toBe(variants.length + 1);
  });

  it("the heuristic judge runs through the same pipeline (combine → BOTH on a correction)", async () => {
    const settings = JudgeSettingsSchema.parse({ kind: "heuristic" });
    const r = await judgeTurn(
      turn({ method: "combine", nextState: { role: "user", content: "no — shorter please, two sentences at most" } }),
      {
        settings,
        backend: createHeuristicJudge(),
        teacher: createSglangTeacher({ baseUrl: fake.url }),
      },
    );
    expect(r.votes.map((v) => v.value)).toEqual([-1, 1, -1, 1, -1, 1]);
    expect([r.score, r.hint, r.judgeKind, r.model]).toEqual([
      -1,
      "The user wants shorter answers: two sentences at most.",
      "heuristic",
      "heuristic-rules-v1",
    ]);
    expect(r.teacherLogprobs).toEqual(expectedTeacher("The user wants shorter answers: two sentences at most."));
    expect(r.dispatch).toEqual({ kind: "BOTH", reward: -1, excluded: false, excludeReason: null });
    expect(chatCalls()).toBe(0);
  });

  it("a custom reward module replaces the PRM", async () => {
    const settings = JudgeSettingsSchema.parse({ kind: "custom", customRewardPath: "custom-reward.ts" });
    const customReward = await loadCustomReward("custom-reward.ts");
    const r = await judgeTurn(
      turn({ method: "combine", nextState: { role: "user", content: "too long, make it shorter" } }),
      {
        settings,
        customReward,
        teacher: createSglangTeacher({ baseUrl: fake.url }),
      },
    );
    const hint = "Keep answers under 600 characters and lead with the direct answer.";
    expect(r.votes.map((v) => [v.kind, v.value])).toEqual([
      ["eval", -1],
      ["eval", 0],
      ["hint", 1],
    ]);
    expect([r.score, r.evalScore, r.hint, r.judgeKind, r.model]).toEqual([
      -1,
      -0.5,
      hint,
      "custom",
      "custom-reward.ts",
    ]);
    expect(r.teacherLogprobs).toEqual(expectedTeacher(hint));
    expect(r.dispatch.kind).toBe("BOTH");
    expect(chatCalls()).toBe(0);
  });
});
