// Judging one turn: PRM eval votes and/or hint votes (concurrently, under limiter/breaker/retries),
// aggregation, hint selection, teacher log-probs for an accepted hint, and the training dispatch.
// Pure apart from the injected backend/teacher/custom reward, so the queue worker stays thin.
import { createHash } from "node:crypto";
import type { JudgeBackend } from "./judgeBackend";
import type { CustomRewardFn } from "./customReward";
import { dispatchTurn } from "./dispatch";
import { HttpStatusError } from "./http";
import { flattenContent, lastUserText } from "./messages";
import { parseEvalVote, parseHintVote } from "./parse";
import { buildJudgeMessages, PROMPT_VERSION, type JudgeTask } from "./prompts";
import {
  BreakerRegistry,
  CircuitOpenError,
  Limiter,
  resilientCall,
  TimeoutError,
  withTimeout,
  type Sleep,
} from "./resilience";
import type {
  ChatMessage,
  JudgeKind,
  JudgeMethod,
  JudgeSettings,
  JudgeVote,
  JudgmentResult,
  VoteValue,
} from "./schemas";
import { hintedTeacherMessages } from "./teacher";
import type { TeacherScorer } from "./teacherClients";
import { majorityVote, meanVote, MIN_HINT_CHARS, selectBestHint, type HintSelection } from "./vote";

export type JudgeTurnInput = {
  method: JudgeMethod;
  /**
   * Extract a hint (the hint votes): by default when the method distils (not GRPO); a per-user experiment's adapters
   * want them whatever its method (config judgeExtractsHints).
   */
  hints?: boolean;
  /** The request the policy answered (the teacher context is built from it). */
  messages: readonly ChatMessage[];
  /** `text` is what the judge sees; `tokenIds` (the policy's own) make teacher scoring exact. */
  response: { text: string; tokenIds?: readonly number[] };
  /** The next main turn's last message (role user or tool); null when the session ended first. */
  nextState: ChatMessage | null;
  tools?: readonly unknown[];
};

export type JudgeTurnDeps = {
  settings: JudgeSettings;
  backend?: JudgeBackend;
  /** Replaces the PRM entirely when set. */
  customReward?: CustomRewardFn;
  teacher?: TeacherScorer | null;
  teacherOptions?: { timeoutMs?: number; retries?: number };
  /** Share these across turns in a worker so breakers and limits are per endpoint, not per call. */
  breakers?: BreakerRegistry;
  judgeLimiter?: Limiter;
  teacherLimiter?: Limiter;
  sleep?: Sleep;
  random?: () => number;
  now?: () => number;
  signal?: AbortSignal;
};

/** Everything that changes what a judgment means. Redelivery under the same settings maps to the same version. */
export function judgeVersion(p: {
  kind: JudgeKind;
  model: string;
  promptVersion: string;
  m: number;
  temperature: number;
  includeRequest: boolean;
  method: JudgeMethod;
  /** hints extracted; absent: as the method implies */
  hints?: boolean;
  evalMode: boolean;
  hintSelection?: HintSelection;
  hintM?: number;
}): string {
  // The reference's hint selection (longest) adds nothing, so judgments made before the option keep their version.
  const fields: unknown[] = [
    p.kind,
    p.model,
    p.promptVersion,
    p.m,
    p.temperature,
    p.includeRequest,
    p.method,
    p.evalMode,
  ];
  // The train-time modes judge exactly as `shortest` does (the same votes, candidate 0 scored): the trainer
  // chooses among the candidates, so switching between them needs no new judgment.
  if (p.hintSelection !== undefined && p.hintSelection !== "longest") fields.push("shortest");
  // A hint count equal to m is what judgments made before the option did.
  if (p.hintM !== undefined && p.hintM !== p.m) fields.push({ hintM: p.hintM });
  // Hints where the method alone would not ask for them (a per-user experiment under GRPO) change the judgment.
  if (p.hints !== undefined && p.hints !== distils(p.method)) fields.push({ hints: p.hints });
  const canonical = JSON.stringify(fields);
  return `jv1-${createHash("sha256").update(canonical).digest("hex").slice(0, 16)}`;
}

/** A method that distils toward the hinted teacher (not GRPO): the judge extracts hints for it unless told otherwise. */
function distils(method: JudgeMethod): boolean {
  return method !== "grpo";
}

/** Whether this turn's judgment extracts a hint (JudgeTurnInput.hints). */
function hintsWanted(input: JudgeTurnInput): boolean {
  return input.hints ?? distils(input.method);
}

export function describeError(err: unknown): string {
  if (err instanceof TimeoutError) return `timeout after ${err.ms} ms`;
  if (err instanceof HttpStatusError) return `http ${err.status}`;
  if (err instanceof CircuitOpenError) return "circuit open";
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

type Aggregate = { votes: JudgeVote[]; score: VoteValue; evalScore: number | null; hint: string | null };

async function runModelVotes(
  input: JudgeTurnInput,
  nextState: ChatMessage,
  deps: JudgeTurnDeps,
  backend: JudgeBackend,
): Promise<Aggregate> {
  const { settings } = deps;
  const now = deps.now ?? Date.now;
  const limiter = deps.judgeLimiter ?? new Limiter(settings.concurrency);
  const breaker = (deps.breakers ?? new BreakerRegistry()).get(`judge:${backend.endpoint}`);
  const base = {
    responseText: input.response.text,
    nextState: { role: nextState.role, text: flattenContent(nextState.content) },
    requestText: settings.includeRequest ? lastUserText(input.messages) : null,
  };
  const runEval = input.method === "grpo" || settings.evalMode;
  const runHint = hintsWanted(input);

  const vote = async (kind: "eval" | "hint", index: number): Promise<JudgeVote> => {
    const task: JudgeTask = { kind, ...base };
    const started = now();
    try {
      const raw = await resilientCall(
        (signal) =>
          backend.complete(buildJudgeMessages(task), {
            temperature: settings.temperature,
            maxTokens: settings.maxTokens,
            signal,
            task,
          }),
        {
          limiter,
          breaker,
          timeoutMs: settings.timeoutMs,
          retry: { retries: settings.retries, sleep: deps.sleep, random: deps.random },
          signal: deps.signal,
        },
      );
      const latencyMs = Math.max(0, Math.round(now() - started));
      if (kind === "eval") {
        const value = parseEvalVote(raw);
        return { kind, index, raw, value, hint: null, latencyMs, error: value === null ? "unparsable answer" : null };
      }
      const { value, hint } = parseHintVote(raw);
      return {
        kind,
        index,
        raw,
        value,
        hint: hint || null,
        latencyMs,
        error: value === null ? "unparsable answer" : null,
      };
    } catch (err) {
      return {
        kind,
        index,
        raw: "",
        value: null,
        hint: null,
        latencyMs: Math.max(0, Math.round(now() - started)),
        error: describeError(err),
      };
    }
  };

  const calls: Promise<JudgeVote>[] = [];
  const hintM = settings.hintM ?? settings.m;
  for (let i = 0; i < Math.max(settings.m, hintM); i++) {
    if (runEval && i < settings.m) calls.push(vote("eval", i));
    if (runHint && i < hintM) calls.push(vote("hint", i));
  }
  const votes = await Promise.all(calls);
  const evalValues = votes.filter((v) => v.kind === "eval").map((v) => v.value);
  return {
    votes,
    score: majorityVote(evalValues),
    evalScore: meanVote(evalValues),
    hint: runHint
      ? (selectBestHint(
          votes.filter((v) => v.kind === "hint"),
          settings.hintSelection,
        )?.hint ?? null)
      : null,
  };
}

async function runCustomReward(
  input: JudgeTurnInput,
  nextState: ChatMessage,
  deps: JudgeTurnDeps,
  fn: CustomRewardFn,
): Promise<Aggregate> {
  const now = deps.now ?? Date.now;
  const started = now();
  try {
    const result = await withTimeout(
      deps.settings.timeoutMs,
      () => fn({ method: input.method, messages: input.messages, responseText: input.response.text }, nextState),
      deps.signal,
    );
    const latencyMs = Math.max(0, Math.round(now() - started));
    const votes: JudgeVote[] = result.votes.map((value, index) => ({
      kind: "eval",
      index,
      raw: JSON.stringify({ vote: value }),
      value,
      hint: null,
      latencyMs,
      error: null,
    }));
    const hintText = result.hint?.trim() ?? "";
    const hint = hintsWanted(input) && hintText.length > MIN_HINT_CHARS ? hintText : null;
    if (hintText)
      votes.push({ kind: "hint", index: 0, raw: hintText, value: 1, hint: hintText, latencyMs, error: null });
    return { votes, score: result.score, evalScore: meanVote(result.votes), hint };
  } catch (err) {
    const vote: JudgeVote = {
      kind: "eval",
      index: 0,
      raw: "",
      value: null,
      hint: null,
      latencyMs: Math.max(0, Math.round(now() - started)),
      error: describeError(err),
    };
    return { votes: [vote], score: 0, evalScore: null, hint: null };
  }
}

async function teacherLogprobs(
  input: JudgeTurnInput,
  hint: string,
  deps: JudgeTurnDeps,
): Promise<{ logprobs: number[] | null; error: string | null }> {
  const teacher = deps.teacher;
  if (!teacher) return { logprobs: null, error: "no teacher configured" };
  const messages = hintedTeacherMessages(input.messages, hint);
  const response = input.response.tokenIds ?? input.response.text;
  try {
    const logprobs = await resilientCall(
      (signal) => teacher.score(messages, response, { signal, tools: input.tools }),
      {
        limiter: deps.teacherLimiter ?? new Limiter(1),
        breaker: (deps.breakers ?? new BreakerRegistry()).get(`teacher:${teacher.endpoint}`),
        timeoutMs: deps.teacherOptions?.timeoutMs ?? deps.settings.timeoutMs,
        retry: {
          retries: deps.teacherOptions?.retries ?? deps.settings.retries,
          sleep: deps.sleep,
          random: deps.random,
        },
        signal: deps.signal,
      },
    );
    if (input.response.tokenIds && logprobs.length !== input.response.tokenIds.length) {
      return {
        logprobs: null,
        error: `teacher returned ${logprobs.length} log-probs for ${input.response.tokenIds.length} tokens`,
      };
    }
    return { logprobs, error: null };
  } catch (err) {
    return { logprobs: null, error: describeError(err) };
  }
}

export async function judgeTurn(input: JudgeTurnInput, deps: JudgeTurnDeps): Promise<JudgmentResult> {
  const { settings } = deps;
  const now = deps.now ?? Date.now;
  const started = now();
  const judgeKind: JudgeKind = deps.customReward ? "custom" : (deps.backend?.kind ?? settings.kind);
  const model = deps.customReward
    ? (settings.customRewardPath ?? "custom")
    : (deps.backend?.model ?? settings.model ?? "unknown");
  if (!deps.customReward && !deps.backend) throw new Error("judgeTurn needs a backend or a custom reward");

  let agg: Aggregate = { votes: [], score: 0, evalScore: null, hint: null };
  if (input.nextState) {
    agg = deps.customReward
      ? await runCustomReward(input, input.nextState, deps, deps.customReward)
      : await runModelVotes(input, input.nextState, deps, deps.backend as JudgeBackend);
  }

  let teacher: { logprobs: number[] | null; error: string | null } = { logprobs: null, error: null };
  // GRPO distils nothing: a hint it asked for (a per-user experiment's demonstrations) needs no teacher log-probs.
  if (agg.hint !== null && distils(input.method)) teacher = await teacherLogprobs(input, agg.hint, deps);

  return {
    score: agg.score,
    evalScore: agg.evalScore,
    votes: agg.votes,
    hint: agg.hint,
    hintAccepted: agg.hint !== null,
    teacherLogprobs: teacher.logprobs,
    teacherError: teacher.error,
    dispatch: dispatchTurn({
      method: input.method,
      hasNextState: input.nextState !== null,
      score: agg.score,
      hintUsable: agg.hint !== null && teacher.logprobs !== null,
    }),
    judgeKind,
    judgeVersion: judgeVersion({
      kind: judgeKind,
      model,
      promptVersion: PROMPT_VERSION,
      m: settings.m,
      temperature: settings.temperature,
      includeRequest: settings.includeRequest,
      method: input.method,
      hints: hintsWanted(input),
      evalMode: settings.evalMode,
      hintSelection: settings.hintSelection,
      hintM: settings.hintM,
    }),
    model,
    promptVersion: PROMPT_VERSION,
    // How the teacher's context became tokens (server template, the checkpoint's template, or ChatML):
    // a judgment's log-probs are only comparable with the policy's under the same rendering.
    settings: {
      ...settings,
      method: input.method,
      ...(agg.hint !== null && deps.teacher ? { teacherTemplate: deps.teacher.template } : {}),
    },
    latencyMs: Math.max(0, Math.round(now() - started)),
  };
}
