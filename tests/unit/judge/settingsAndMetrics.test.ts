// Pure parts of the judging side: config → judge settings/teacher/version, and metric summaries,
// checked against hand-computed values and against what judgeTurn itself stamps.
import { describe, expect, it } from "vitest";
import {
  ExperimentConfigSchema,
  judgeExtractsHints,
  type ExperimentConfigInput,
} from "../../../server/config/experimentConfig";
import { createJudgeBackend } from "../../../server/judge/core/backends";
import { loadCustomReward } from "../../../server/judge/core/customReward";
import { judgeTurn } from "../../../server/judge/core/judgeTurn";
import type { JudgmentResult } from "../../../server/judge/core/schemas";
import { nextStateMessage } from "../../../server/judge/worker/load";
import { sampleOf, summarize, type JudgedSample } from "../../../server/judge/worker/metrics";
import { isTransientFailure, unavailability } from "../../../server/judge/worker/process";
import { expectedJudgeVersion, judgeSettingsFor, teacherPlanFor } from "../../../server/judge/worker/settings";

const cfg = (c: ExperimentConfigInput) => ExperimentConfigSchema.parse(c);
const sglang = { kind: "sglang" as const, baseUrl: "http://judge:30000/v1", model: "prm" };

describe("judge settings from the experiment config", () => {
  it("maps votes/temperature/maxTokens/includeRequest/evalMode and the backend kind", () => {
    const s = judgeSettingsFor(
      cfg({
        judge: { backend: sglang, votes: 5, temperature: 0.3, maxTokens: 512, includeRequest: true, evalMode: false },
      }),
      { timeoutMs: 1000, retries: 1 },
      8,
    );
    expect(s).toMatchObject({
      kind: "openai",
      baseUrl: "http://judge:30000/v1",
      model: "prm",
      m: 5,
      temperature: 0.3,
      maxTokens: 512,
      includeRequest: true,
      evalMode: false,
      timeoutMs: 1000,
      retries: 1,
      concurrency: 8,
    });
    expect(judgeSettingsFor(cfg({})).kind).toBe("heuristic");
    expect(
      judgeSettingsFor(cfg({ method: "grpo", judge: { backend: { kind: "custom", modulePath: "x.ts" } } })),
    ).toMatchObject({ kind: "custom", customRewardPath: "x.ts" });
  });

  it("the expected judge version is exactly what judgeTurn stamps, for every kind", async () => {
    const input = {
      method: "grpo" as const,
      messages: [{ role: "user", content: "hi" }],
      response: { text: "hello" },
      nextState: null,
    };
    const configs = [
      cfg({ method: "grpo" }),
      cfg({ method: "combine", judge: { votes: 5 } }),
      cfg({ method: "grpo", judge: { backend: sglang, temperature: 0.2 } }),
      cfg({ method: "grpo", judge: { backend: { kind: "custom", modulePath: "custom-reward.ts" } } }),
      // a per-user experiment under GRPO: its adapters' demonstrations want the hints (judgeExtractsHints)
      cfg({ method: "grpo", personalization: "per-user" }),
    ];
    const versions = new Set<string>();
    for (const c of configs) {
      const settings = judgeSettingsFor(c);
      const deps =
        settings.kind === "custom"
          ? { settings, customReward: await loadCustomReward(settings.customRewardPath!) }
          : { settings, backend: createJudgeBackend(settings) };
      const r = await judgeTurn({ ...input, method: c.method, hints: judgeExtractsHints(c) }, deps);
      expect(r.judgeVersion).toBe(expectedJudgeVersion(c));
      versions.add(r.judgeVersion);
    }
    expect(versions.size).toBe(configs.length);
  });

  it("the teacher shares the policy's tokenizer: embedded base checkpoint, the SGLang judge engine, or the SGLang policy", () => {
    expect(teacherPlanFor(cfg({ method: "grpo" }))).toEqual({ kind: "none" });
    expect(teacherPlanFor(cfg({ method: "opd" }))).toEqual({ kind: "embedded", checkpoint: "models/base" });
    const policy = { kind: "sglang" as const, baseUrl: "http://policy:30000/v1", model: "p", apiKey: "pk" };
    const viaJudge = teacherPlanFor(cfg({ policy, judge: { backend: { ...sglang, apiKey: "jk" } } }));
    expect(viaJudge).toMatchObject({
      kind: "remote",
      apiKey: "jk",
      settings: { kind: "sglang", baseUrl: sglang.baseUrl, template: "chatml" },
    });
    expect(teacherPlanFor(cfg({ policy }))).toMatchObject({
      kind: "remote",
      apiKey: "pk",
      settings: { baseUrl: policy.baseUrl },
    });
    expect(teacherPlanFor(cfg({ policy: { ...policy, kind: "openai" } }))).toEqual({ kind: "none" });
  });
});

describe("next state as recorded", () => {
  it("keeps a message, with the recorded role winning; wraps strings; shows other JSON as text", () => {
    expect(nextStateMessage({ role: "user", content: "ok" }, "tool")).toEqual({ role: "tool", content: "ok" });
    expect(nextStateMessage("done", null)).toEqual({ role: "user", content: "done" });
    expect(nextStateMessage([1, 2], "tool")).toEqual({ role: "tool", content: "[1,2]" });
    expect(nextStateMessage(null, "user")).toBeNull();
  });
});

const vote = (kind: "eval" | "hint", value: -1 | 0 | 1 | null, latencyMs: number, error: string | null = null) => ({
  kind,
  index: 0,
  raw: "",
  value,
  hint: null,
  latencyMs,
  error,
});
const result = (over: Partial<JudgmentResult>): JudgmentResult => ({
  score: 0,
  evalScore: null,
  votes: [],
  hint: null,
  hintAccepted: false,
  teacherLogprobs: null,
  teacherError: null,
  dispatch: { kind: null, reward: 0, excluded: true, excludeReason: "x" },
  judgeKind: "openai",
  judgeVersion: "v",
  model: "m",
  promptVersion: "p",
  settings: {},
  latencyMs: 0,
  ...over,
});

describe("metrics", () => {
  it("summarises a window by hand-computed values", () => {
    const a = sampleOf(
      result({
        score: 1,
        dispatch: { kind: "RL", reward: 1, excluded: false, excludeReason: null },
        votes: [vote("eval", 1, 10), vote("eval", 1, 30), vote("eval", -1, 20)],
      }),
    );
    const b = sampleOf(
      result({
        score: 0,
        votes: [vote("eval", 1, 40), vote("eval", -1, 50), vote("eval", null, 60, "http 500"), vote("hint", 1, 70)],
        hintAccepted: true,
      }),
    );
    const c = sampleOf(
      result({
        score: -1,
        dispatch: { kind: "RL", reward: -1, excluded: false, excludeReason: null },
        votes: [vote("eval", -1, 80), vote("hint", -1, 90)],
      }),
    );
    expect(a.agreement).toBeCloseTo(2 / 3, 12);
    expect(b.agreement).toBe(0.5);
    const points = Object.fromEntries(
      summarize([a, b, c], 2000, { depth: 7, lagMs: 1234 }).map((p) => [p.name, p.value]),
    );
    expect(points).toEqual({
      "judge/judged_per_s": 1.5,
      "judge/score_pos": 1,
      "judge/score_neg": 1,
      "judge/score_zero": 1,
      "judge/excluded": 1,
      "judge/queue_depth": 7,
      "judge/lag_ms": 1234,
      // latencies 10,20,30,40,50,60,70,80,90 → median 50
      "judge/vote_latency_ms": 50,
      "judge/vote_agreement": (2 / 3 + 0.5 + 1) / 3,
      // b and c had hint votes; b's hint was accepted
      "judge/hint_acceptance": 0.5,
    });
  });

  it("an empty window reports counts and backlog only", () => {
    const empty: JudgedSample[] = [];
    expect(summarize(empty, 5000, { depth: 0, lagMs: 0 }).map((p) => p.name)).toEqual([
      "judge/judged_per_s",
      "judge/score_pos",
      "judge/score_neg",
      "judge/score_zero",
      "judge/excluded",
      "judge/queue_depth",
      "judge/lag_ms",
    ]);
  });
});

describe("what counts as a failure to judge rather than a verdict", () => {
  it("all calls of one kind failed, or the configured teacher failed on an accepted hint; transient when every cause is", () => {
    expect(
      unavailability(
        result({ votes: [vote("eval", null, 1, "http 503"), vote("eval", null, 1, "timeout after 5 ms")] }),
        false,
      ),
    ).toEqual({
      reason: "every eval call failed (http 503)",
      transient: true,
    });
    expect(
      unavailability(result({ votes: [vote("eval", null, 1, "http 503"), vote("eval", null, 1, "http 404")] }), false),
    ).toEqual({
      reason: "every eval call failed (http 503)",
      transient: false,
    });
    expect(
      unavailability(
        result({ votes: [vote("eval", null, 1, "unparsable answer"), vote("eval", null, 1, "http 503")] }),
        false,
      ),
    ).toBeNull();
    expect(
      unavailability(result({ votes: [vote("eval", 1, 1), vote("hint", null, 1, "circuit open")] }), false),
    ).toEqual({
      reason: "every hint call failed (circuit open)",
      transient: true,
    });
    const hinted = result({ votes: [vote("hint", 1, 1)], hintAccepted: true, teacherError: "TypeError: fetch failed" });
    expect(unavailability(hinted, true)).toEqual({
      reason: "teacher scoring failed (TypeError: fetch failed)",
      transient: true,
    });
    expect(
      unavailability({ ...hinted, teacherError: "teacher returned 3 log-probs for 4 tokens" }, true)?.transient,
    ).toBe(false);
    expect(unavailability(hinted, false)).toBeNull();
    expect(unavailability(result({}), true)).toBeNull();
  });

  it("classifies describeError's wording", () => {
    for (const e of [
      "timeout after 300 ms",
      "circuit open",
      "http 429",
      "http 500",
      "http 503",
      "TypeError: fetch failed",
      "TimeoutError: The operation was aborted due to timeout",
    ])
      expect(isTransientFailure(e), e).toBe(true);
    for (const e of [
      "http 400",
      "http 404",
      "http 5000x",
      "BadResponseError: non-JSON body",
      "Error: response of 300 tokens does not fit context 256",
    ]) {
      expect(isTransientFailure(e), e).toBe(false);
    }
  });
});
