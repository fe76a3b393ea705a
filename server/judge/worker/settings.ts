// From an experiment config to what the judge core needs: judge settings, where teacher log-probs
// come from, and the judge version a judgment of this config carries (the sweeper and the worker
// must agree on it, so it is computed here from the config alone, without building any backend).
import { createHash } from "node:crypto";
import { judgeExtractsHints, type ExperimentConfig } from "../../config/experimentConfig";
import { HEURISTIC_JUDGE_MODEL } from "../core/heuristic";
import { judgeVersion } from "../core/judgeTurn";
import { PROMPT_VERSION } from "../core/prompts";
import { JudgeSettingsSchema, TeacherSettingsSchema, type JudgeSettings, type TeacherSettings } from "../core/schemas";

/** Per-call limits of the worker process (not part of the experiment config, nor of the judge version). */
export type CallPolicy = { timeoutMs: number; retries: number };

export const DEFAULT_CALL_POLICY: CallPolicy = { timeoutMs: 120_000, retries: 2 };

/** Judge settings for the core. `sglang` judges speak the OpenAI chat API, so they map to `openai`. */
export function judgeSettingsFor(
  config: ExperimentConfig,
  calls: CallPolicy = DEFAULT_CALL_POLICY,
  concurrency = 4,
): JudgeSettings {
  const { judge } = config;
  const common = {
    m: judge.votes,
    temperature: judge.temperature,
    maxTokens: judge.maxTokens,
    includeRequest: judge.includeRequest,
    evalMode: judge.evalMode,
    hintSelection: judge.hintSelection,
    hintM: judge.hintM,
    timeoutMs: calls.timeoutMs,
    retries: calls.retries,
    concurrency,
  };
  const b = judge.backend;
  if (b.kind === "heuristic") return JudgeSettingsSchema.parse({ ...common, kind: "heuristic" });
  if (b.kind === "custom")
    return JudgeSettingsSchema.parse({ ...common, kind: "custom", customRewardPath: b.modulePath });
  return JudgeSettingsSchema.parse({ ...common, kind: "openai", baseUrl: b.baseUrl, model: b.model });
}

/** The version judgeTurn stamps on a judgment under this config (same inputs, same hash). */
export function expectedJudgeVersion(config: ExperimentConfig): string {
  const s = judgeSettingsFor(config);
  const model =
    s.kind === "custom"
      ? (s.customRewardPath ?? "custom")
      : s.kind === "heuristic"
        ? HEURISTIC_JUDGE_MODEL
        : (s.model ?? "unknown");
  return judgeVersion({
    kind: s.kind,
    model,
    promptVersion: PROMPT_VERSION,
    m: s.m,
    temperature: s.temperature,
    includeRequest: s.includeRequest,
    method: config.method,
    hints: judgeExtractsHints(config),
    evalMode: s.evalMode,
    hintSelection: s.hintSelection,
    hintM: s.hintM,
  });
}

/**
 * Where teacher log-probs come from. They must be over the POLICY's tokens (the trainer subtracts the
 * policy's own log-probs), so the teacher has to share the policy's tokenizer:
 * - embedded policy → the frozen base checkpoint in-process (the policy's own weights move);
 * - SGLang policy with an SGLang judge → the judge engine, as in the reference (the frozen PRM model
 *   scores the hinted context);
 * - SGLang policy otherwise → the policy server itself (live weights, the only scorer available);
 * - OpenAI policy with an SGLang judge → the judge engine; an OpenAI API cannot score a given text,
 *   so any other combination has no teacher (hints are stored, no OPD sample is produced).
 */
export type TeacherPlan =
  | { kind: "none" }
  | { kind: "embedded"; checkpoint: string }
  | { kind: "remote"; settings: TeacherSettings; apiKey?: string };

export function teacherPlanFor(
  config: ExperimentConfig,
  calls: CallPolicy = DEFAULT_CALL_POLICY,
  concurrency = 1,
): TeacherPlan {
  if (config.method === "grpo") return { kind: "none" };
  const { policy } = config;
  const judge = config.judge.backend;
  if (policy.kind === "embedded") return { kind: "embedded", checkpoint: policy.checkpoint };
  const remote = (baseUrl: string, apiKey?: string): TeacherPlan => ({
    kind: "remote",
    settings: TeacherSettingsSchema.parse({
      kind: "sglang",
      baseUrl,
      ...(config.judge.chatTemplate
        ? {
            template: "checkpoint",
            chatTemplate: config.judge.chatTemplate,
            chatTemplateKwargs: config.judge.chatTemplateKwargs,
          }
        : { template: "chatml" }),
      timeoutMs: calls.timeoutMs,
      retries: calls.retries,
      concurrency,
    }),
    apiKey,
  });
  if (judge.kind === "sglang") return remote(judge.baseUrl, judge.apiKey);
  if (policy.kind === "sglang") return remote(policy.baseUrl, policy.apiKey);
  return { kind: "none" };
}

/** Cache key for everything built from a config (secrets included, so a rotated key rebuilds clients). */
export function judgeConfigHash(config: ExperimentConfig): string {
  return createHash("sha256")
    .update(JSON.stringify([config.method, config.judge, config.policy]))
    .digest("hex")
    .slice(0, 16);
}
