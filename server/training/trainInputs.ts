// From Sample rows to the engine's TrainSample: the prompt exactly as the proxy's embedded upstream
// rendered it when it served the turn, the recorded response ids and behaviour log-probs, the reward and
// kind the loss needs, the teacher log-probs (the judgment's, or a reviewer hint scored now), where in the
// conversation the reply was served (the per-context baseline), and, with `hindsightSamples`, demonstrations:
// corrections turned into targets for the prompt the policy failed on (see hindsightDemos).
import { z } from "zod";
import { db } from "../platform/db/client";
import type { PolicyModel } from "../engine/model";
import { scoreBatch } from "../engine/score";
import { generateBatch } from "../engine/generate";
import type { ReplyContext } from "../engine/losses";
import { parseChatRequest } from "../engine/request";
import { fitChat, servedPrompt } from "../engine/fit";
import { parseToolCalls } from "../engine/tokenizer";
import type { TrainSample } from "../engine/train";
import type { ExperimentConfig } from "../config/experimentConfig";
import { ChatMessageSchema } from "../judge/core/schemas";
import { classifyNextState } from "../judge/core/heuristic";
import { hintedTeacherMessages } from "../judge/core/teacher";
import type { TeacherScorer } from "../judge/core/teacherClients";
import { effectiveLabelsForTurns } from "../labels/effective";
import type { TrainingLabel } from "../labels/trainingLabel";
import { reassembleMessages } from "../recording/reassemble";
import { decideSample, type SampleDecision } from "./decide";
import { messageText } from "./messageText";
import { TRAINER_EXCLUDE, type TraceEntry } from "./schemas";
import { importanceWeight, isTooStale } from "./staleness";
import { restatesQuestion, styleHints, styleTurns, type StyleSource, type StyleTurn } from "./styleDemos";

/**
 * The prompt ids the embedded upstream generated from: the request parsed as it parses it ("function"
 * messages are tool messages, invalid tool definitions are skipped), rendered with the generation prompt and
 * fitted as the engine fitted it (engine/fit.ts), found from the `promptTokens` it reported. null when the
 * request does not render.
 */
export function servedPromptIds(
  messages: readonly unknown[],
  tools: unknown,
  promptTokens: number | null,
): number[] | null {
  const request = parseChatRequest(messages, tools);
  if (!request) return null;
  return servedPrompt(request.messages, promptTokens, { addGenerationPrompt: true, tools: request.tools });
}

export interface BatchSampleRow {
  id: string;
  turnId: string;
}

export interface BuiltBatch {
  samples: TrainSample[];
  trace: TraceEntry[];
  /** the decisions actually trained (written back to the Sample rows at commit) */
  decisions: Map<string, SampleDecision>;
  /** samples that turned out not to be trainable now, with the reason (the step is then not taken) */
  dropped: { id: string; decision: SampleDecision }[];
  responseLens: number[];
  /** judgment eval score (grpo: the PRM score) per sample that has a judgment */
  evalScores: number[];
  /** samples beyond maxStaleness trained with an importance weight */
  importanceWeighted: number;
  /** hindsight demonstrations (kind DEMO), trained beside `samples` by cross-entropy */
  demos: TrainSample[];
  /** each end user's style hint in the batch (styleDemos.ts styleHints), for the run's memory */
  styleHints: Map<string | null | undefined, string>;
}

export interface BuildContext {
  runId: string;
  config: ExperimentConfig;
  /** the version the model below is at */
  currentVersion: number;
  model: PolicyModel;
  /** scores reviewer hints (the frozen base, as the judge's embedded teacher) */
  teacher: () => TeacherScorer;
  /** the frozen base: the hinted teacher that writes hindsight demonstrations */
  base?: PolicyModel;
  /** seeds the demonstrations' sampling (the step number: a retried step samples the same ones) */
  seed?: number;
  /** the base checkpoint's public prompts, for the style demonstrations (hyper.stylePrompts) */
  promptPool?: readonly string[];
  /** the run's remembered style hints (hyper.rememberedStyleHints, hyper.userStyleHints), most recently heard last */
  rememberedStyleHints?: ReadonlyMap<string | null | undefined, string>;
}

/**
 * The teacher's prompt ids: the served request with the hint appended (judge/core/teacher.ts), fitted by whole
 * messages into `budget` tokens (the context less the response), as the embedded teacher fits it.
 */
export function hintedPromptIds(
  messages: readonly unknown[],
  tools: unknown,
  hint: string,
  budget: number,
): number[] | null {
  const judgeMessages = JudgeMessagesSchema.safeParse(messages);
  if (!judgeMessages.success || budget < 1) return null;
  const request = parseChatRequest(hintedTeacherMessages(judgeMessages.data, hint), tools);
  return request ? fitChat(request.messages, budget, { addGenerationPrompt: true, tools: request.tools }) : null;
}

const MessagesSchema = z.array(z.unknown());

const roleOf = (m: unknown) => String((m as { role?: unknown }).role ?? "");
const isCorrection = (m: unknown) => classifyNextState("user", messageText(m)).value === -1;

/**
 * Where the reply to `messages` was served: the conversation's first reply (no assistant reply yet), after a user
 * message the judge reads as a correction, or after any other (an approval, often with the next question).
 */
export function replyContext(messages: readonly unknown[]): ReplyContext {
  const lastUser = messages.findLastIndex((m) => roleOf(m) === "user");
  if (lastUser < 0 || !messages.slice(0, lastUser).some((m) => roleOf(m) === "assistant")) return "first";
  return isCorrection(messages[lastUser]) ? "afterCorrection" : "afterApproval";
}

/**
 * The request before the corrections that led to this reply: trailing (assistant reply, correction) pairs removed
 * while the last user message is a correction. null when the reply did not follow a correction.
 */
export function promptBeforeCorrections(messages: readonly unknown[]): unknown[] | null {
  let msgs = [...messages];
  let stripped = false;
  for (;;) {
    const lastUser = msgs.findLastIndex((m) => roleOf(m) === "user");
    if (lastUser < 1 || lastUser !== msgs.length - 1 || !isCorrection(msgs[lastUser])) break;
    const reply = msgs.findLastIndex((m, i) => i < lastUser && roleOf(m) === "assistant");
    if (reply < 0) break;
    msgs = msgs.slice(0, reply);
    stripped = true;
  }
  return stripped && msgs.length ? msgs : null;
}
const JudgeMessagesSchema = z.array(ChatMessageSchema);

const LOSS_KIND: Record<ExperimentConfig["method"], TrainSample["kind"]> = { grpo: "RL", opd: "OPD", combine: "BOTH" };

async function toolsOf(toolsHash: string | null): Promise<unknown> {
  if (!toolsHash) return undefined;
  return (await db().blob.findUnique({ where: { hash: toolsHash } }))?.content ?? undefined;
}

export async function buildBatch(rows: readonly BatchSampleRow[], ctx: BuildContext): Promise<BuiltBatch> {
  const { config } = ctx;
  const turnIds = rows.map((r) => r.turnId);
  const [turns, labels, judgments] = await Promise.all([
    db().turn.findMany({
      where: { id: { in: turnIds } },
      select: {
        id: true,
        sessionId: true,
        index: true,
        systemHash: true,
        toolsHash: true,
        turnType: true,
        endUserId: true,
        tokenIds: true,
        logprobs: true,
        promptTokens: true,
        policyVersion: true,
      },
    }),
    effectiveLabelsForTurns(turnIds),
    db().judgment.findMany({ where: { turnId: { in: turnIds } }, select: { id: true, score: true, evalScore: true } }),
  ]);
  const turnById = new Map(turns.map((t) => [t.id, t]));
  const judgmentById = new Map(judgments.map((j) => [j.id, j]));

  const out: BuiltBatch = {
    samples: [],
    trace: [],
    decisions: new Map(),
    dropped: [],
    responseLens: [],
    evalScores: [],
    importanceWeighted: 0,
    demos: [],
    styleHints: new Map(),
  };
  const stale: number[] = [];
  const hindsight: HindsightSource[] = [];
  const styled: StyleSource[] = [];
  // The teacher hears what the user asked for earlier in the conversation too (conversationHints).
  const earlier =
    config.method !== "grpo" && config.hyper.conversationHints
      ? await earlierSessionHints(turns)
      : new Map<string, string[]>();
  // ... and, for a correction about the content alone, what the same user asked of their replies (userStyleHints).
  const userStyle = config.method !== "grpo" && config.hyper.userStyleHints ? ctx.rememberedStyleHints : undefined;
  type Asker = { id: string; endUserId: string | null };
  const hintsBefore = (turn: Asker, hint: string, messages: readonly unknown[]) =>
    withUserStyle(earlier.get(turn.id), hint, messages, turn.endUserId ? userStyle?.get(turn.endUserId) : undefined);
  const withEarlier = (turn: Asker, hint: string, messages: readonly unknown[]) =>
    conversationHint(hint, hintsBefore(turn, hint, messages));
  for (const row of rows) {
    const turn = turnById.get(row.turnId)!;
    const label = labels.get(row.turnId) as TrainingLabel;
    const decision = decideSample(label, {
      method: config.method,
      currentVersion: ctx.currentVersion,
      servedVersion: turn.policyVersion,
      maxStaleness: config.hyper.maxStaleness,
      stalePolicy: config.hyper.stalePolicy,
      tokenCount: turn.tokenIds.length,
      logprobCount: turn.logprobs.length,
    });
    if (!decision || decision.excluded) {
      if (decision) out.dropped.push({ id: row.id, decision });
      continue;
    }
    const [messages, tools] = await Promise.all([reassembleMessages(turn), toolsOf(turn.toolsHash)]);
    const promptIds = servedPromptIds(MessagesSchema.parse(messages), tools, turn.promptTokens);
    if (!promptIds) {
      out.dropped.push({
        id: row.id,
        decision: { ...decision, excluded: true, excludeReason: TRAINER_EXCLUDE.unrenderable },
      });
      continue;
    }
    let teacherLogprobs: number[] | undefined;
    let teacherPromptIds: number[] | undefined;
    let teacherPromptCandidates: number[][] | undefined;
    let teacherSource: TraceEntry["teacher"] = "none";
    const { opdEstimator, teacherSource: source } = config.hyper;
    if (decision.teacher && (opdEstimator !== "sampled" || source === "current")) {
      // The teacher is scored at step time: the whole distribution (topk/full) from the frozen base or the
      // current policy, or the current policy's log-probs of the sampled tokens (sampled + current).
      const hinted = hintedPromptIds(
        MessagesSchema.parse(messages),
        tools,
        withEarlier(turn, label.hint!, messages),
        ctx.model.config.ctx - turn.tokenIds.length,
      );
      if (!hinted) {
        out.dropped.push({
          id: row.id,
          decision: { ...decision, excluded: true, excludeReason: TRAINER_EXCLUDE.unrenderable },
        });
        continue;
      }
      if (opdEstimator === "sampled")
        teacherLogprobs = scoreBatch(ctx.model, [{ promptIds: hinted, responseIds: turn.tokenIds }])[0];
      else teacherPromptIds = hinted;
      // token_optimal / sequence_optimal: every candidate's hinted prompt (shortest first, candidate 0 = `hinted`);
      // one that does not fit the context is left out, as upstream drops a hint it cannot render.
      const { hintSelection } = config.judge;
      if (
        teacherPromptIds &&
        label.hintCandidates &&
        (hintSelection === "token_optimal" || hintSelection === "sequence_optimal")
      ) {
        const rest = label.hintCandidates
          .slice(1)
          .map((h) =>
            hintedPromptIds(
              MessagesSchema.parse(messages),
              tools,
              withEarlier(turn, h, messages),
              ctx.model.config.ctx - turn.tokenIds.length,
            ),
          )
          .filter((ids): ids is number[] => ids !== null);
        if (rest.length) teacherPromptCandidates = [hinted, ...rest];
      }
      teacherSource = "step";
    } else if (decision.teacher === "judgment") {
      teacherLogprobs = label.teacherLogprobs!;
      teacherSource = "judgment";
    } else if (decision.teacher === "rescore") {
      const hinted = hintedTeacherMessages(JudgeMessagesSchema.parse(messages), label.hint!);
      teacherLogprobs = await ctx
        .teacher()
        .score(hinted, turn.tokenIds, { tools: Array.isArray(tools) ? tools : undefined });
      if (teacherLogprobs.length !== turn.tokenIds.length) {
        out.dropped.push({
          id: row.id,
          decision: { ...decision, excluded: true, excludeReason: TRAINER_EXCLUDE.teacherMismatch },
        });
        continue;
      }
      teacherSource = "rescored";
    }
    // The loss by method: grpo trains A = r; opd A = teacher − π; combine always uses the combine
    // estimator. Its RL-only samples (OpenClaw-RL `openclaw-combine/openclaw_combine_api_server.py`: teacher =
    // rollout log-probs) carry no teacher here, so their OPD term is exactly 0 rather than rollout − π, which
    // grows with staleness and with the π_old swap of importance-weighted samples below.
    const kind = LOSS_KIND[config.method];
    if (config.method === "combine" && decision.kind === "RL") {
      teacherLogprobs = undefined;
      teacherSource = "none";
    }
    if (isTooStale(decision.staleness, config.hyper.maxStaleness)) stale.push(out.samples.length);
    const parsedMessages = MessagesSchema.parse(messages);
    out.samples.push({
      promptIds,
      responseIds: turn.tokenIds,
      oldLogprobs: turn.logprobs,
      reward: decision.reward,
      teacherLogprobs,
      teacherPromptIds,
      ...(teacherPromptCandidates ? { teacherPromptCandidates } : {}),
      kind,
      weight: 1,
      context: replyContext(parsedMessages),
      ...(label.groupNormalized ? { groupNormalized: true } : {}),
    });
    if (config.hyper.hindsightSamples > 0)
      // Corrections become demonstrations: a remembered hint (hint memory) was not a correction of this reply.
      hindsight.push({
        messages: parsedMessages,
        tools,
        promptIds,
        turn,
        hint: label.hintFromTurnId ? null : label.hint,
        earlierHints: label.hint ? hintsBefore(turn, label.hint, parsedMessages) : earlier.get(turn.id),
        reward: decision.reward,
      });
    // A remembered hint (hint memory) counts here: it is what this user asked of every reply.
    if (label.hint) styled.push({ messages: parsedMessages, hint: label.hint, endUserId: turn.endUserId });
    out.decisions.set(row.id, decision);
    out.responseLens.push(turn.tokenIds.length);
    const judgment = label.judgmentId ? judgmentById.get(label.judgmentId) : undefined;
    if (judgment) out.evalScores.push(judgment.evalScore ?? judgment.score);
    out.trace.push({
      sampleId: row.id,
      turnId: row.turnId,
      judgmentId: label.judgmentId,
      labelId: label.labelId,
      labelSource: decision.labelSource,
      kind: decision.kind,
      reward: decision.reward,
      staleness: decision.staleness,
      weight: 1,
      teacher: teacherSource,
    });
  }
  // Importance-weighted stale samples (stalePolicy "importance-weight"): ratio to the current policy,
  // whole-sample weight = truncated importance ratio current/behaviour (see staleness.ts).
  out.importanceWeighted = stale.length;
  if (stale.length) {
    const current = scoreBatch(
      ctx.model,
      stale.map((i) => out.samples[i]),
    );
    stale.forEach((i, k) => {
      const s = out.samples[i];
      const w = importanceWeight(current[k], s.oldLogprobs);
      out.samples[i] = { ...s, oldLogprobs: current[k], weight: w };
      out.trace[i].weight = w;
    });
  }
  const style =
    config.method === "grpo" || !ctx.base
      ? []
      : styleTurns(styled, ctx.promptPool ?? [], config.hyper.stylePrompts, {
          seed: ctx.seed ?? 0,
          budget: ctx.model.config.ctx - config.serving.maxTokens,
          remembered: config.hyper.rememberedStyleHints ? ctx.rememberedStyleHints : undefined,
        });
  out.styleHints = styleHints(styled);
  out.demos = await hindsightDemos(hindsight, ctx, style);
  return out;
}

/**
 * The teacher's hint with `conversationHints`: the turn's own hint first, then the hints of the conversation's earlier
 * replies (most recent first, repeats left out). A correction that says only "that doesn't answer my question" yields a
 * hint about the content; alone in the teacher's context, the small base then answers in its default style — the one
 * the user corrected earlier in the conversation — and OPD and the demonstrations pull the student back to it. The
 * turn's hint goes first: the embedded base follows the last instruction of a hint best (measured: the style hint last
 * is followed 0.84 of the time, first 0.16).
 */
export function conversationHint(hint: string, earlier: readonly string[] | undefined): string {
  return [hint, ...(earlier ?? []).filter((h) => h !== hint)].join(" ");
}

/**
 * The hints a turn's teacher hears after its own: the conversation's earlier ones, then — when the turn's own hint only
 * restates its question and the conversation's do not already hold it — the user's style hint (`userStyleHints`).
 * Last, because the embedded base follows the last instruction of a hint best.
 */
export function withUserStyle(
  earlier: readonly string[] | undefined,
  hint: string,
  messages: readonly unknown[],
  userStyle: string | undefined,
): readonly string[] | undefined {
  if (!userStyle || !restatesQuestion(hint, messages) || userStyle === hint || earlier?.includes(userStyle))
    return earlier;
  return [...(earlier ?? []), userStyle];
}

/**
 * The hints the judge accepted (or a reviewer gave) on each turn's earlier replies in the same conversation, most
 * recent first, without repeats: what the user has already asked for in this conversation.
 */
export async function earlierSessionHints(
  turns: readonly { id: string; sessionId: string; index: number }[],
): Promise<Map<string, string[]>> {
  if (!turns.length) return new Map();
  // Only the turns before the latest one asked about, per conversation.
  const latest = new Map<string, number>();
  for (const t of turns) latest.set(t.sessionId, Math.max(latest.get(t.sessionId) ?? 0, t.index));
  const earlier = await db().turn.findMany({
    where: {
      OR: [...latest].map(([sessionId, index]) => ({ sessionId, index: { lt: index } })),
      turnType: "MAIN",
    },
    select: { id: true, sessionId: true, index: true },
    orderBy: { index: "desc" },
  });
  const labels = await effectiveLabelsForTurns(earlier.map((t) => t.id));
  return new Map(
    turns.map((t) => [
      t.id,
      [
        ...new Set(
          earlier
            .filter((e) => e.sessionId === t.sessionId && e.index < t.index)
            .flatMap((e) => {
              const l = labels.get(e.id);
              // A remembered hint (hint memory) is not something the user said in this conversation.
              return l?.hint && !l.hintFromTurnId ? [l.hint] : [];
            }),
        ),
      ],
    ]),
  );
}

/**
 * Which of the hinted teacher's replies become demonstrations. The teacher babbles now and then (a long tool context,
 * a hint it cannot follow): such a reply has a low mean log-prob under the teacher itself and, being far from the
 * policy, the largest cross-entropy gradient of the batch, so only replies the teacher is confident in count (mean
 * token log-prob ≥ `minLogprob`: its own log-probs, not the reward). Nor does a reply that calls a tool: the hint was
 * feedback on the text the user read, and what the call's result and the answer after it would have been is unknown
 * (the embedded base calls its note lookup, confidently, on about one hinted prompt in ten; as a demonstration that
 * teaches the first reply a tool call instead of an answer).
 */
export function isDemonstration(
  g: { tokenIds: readonly number[]; logprobs: readonly number[]; text: string },
  minLogprob: number,
): boolean {
  if (!g.tokenIds.length) return false;
  const mean = g.logprobs.reduce((a, b) => a + b, 0) / g.logprobs.length;
  return mean >= minLogprob && parseToolCalls(g.text).toolCalls.length === 0;
}

export interface HindsightSource {
  messages: unknown[];
  tools: unknown;
  promptIds: number[];
  turn: { tokenIds: number[] };
  hint: string | null | undefined;
  /** OPD and Combine: the hints of the conversation's earlier replies, most recent first (earlierSessionHints) */
  earlierHints?: readonly string[];
  reward: number;
}

/**
 * Corrections become demonstrations (hindsight; context distillation, as SDPO uses successful rollouts as feedback
 * for failed attempts). OPD and Combine: for every hinted turn, `hindsightSamples` replies sampled (T = 1) from the
 * hinted teacher — the frozen base with the hint in context, as the OPD teacher sees it — become targets for the
 * prompt the policy was served, without the hint. GRPO (scores only): a reply the judge approved right after a
 * correction becomes a target for the prompt before the correction, so the first reply learns what the user accepted
 * (RAFT-style: no importance weight). Both depart from the reference, which trains only on the served reply.
 */
export async function hindsightDemos(
  sources: readonly HindsightSource[],
  ctx: Pick<BuildContext, "config" | "model" | "base" | "seed">,
  /** OPD and Combine: the style demonstrations' turns (styleDemos.ts), taught by the same hinted teacher */
  style: readonly StyleTurn[] = [],
): Promise<TrainSample[]> {
  const { config } = ctx;
  const n = config.hyper.hindsightSamples;
  if (!n || (!sources.length && !style.length)) return [];
  const maxTokens = config.serving.maxTokens;
  const budget = ctx.model.config.ctx - maxTokens;
  if (budget < 1) return [];
  if (config.method === "grpo") {
    const out: TrainSample[] = [];
    for (const s of sources) {
      if (!(s.reward > 0) || replyContext(s.messages) !== "afterCorrection") continue;
      const before = promptBeforeCorrections(s.messages);
      const request = before ? parseChatRequest(before, s.tools) : null;
      if (!request) continue;
      const promptIds = fitChat(request.messages, budget, { addGenerationPrompt: true, tools: request.tools });
      if (promptIds.length + s.turn.tokenIds.length > ctx.model.config.ctx) continue;
      out.push(
        hindsightDemo(
          promptIds,
          s.turn.tokenIds,
          s.turn.tokenIds.map(() => 0),
        ),
      );
    }
    return out;
  }
  if (!ctx.base) return [];
  const demos = await hintedTeacherDemos(ctx.base, [...sources, ...style], {
    samples: n,
    minLogprob: config.hyper.hindsightMinLogprob,
    minGain: config.hyper.hindsightMinGain,
    maxTokens,
    temperature: config.hyper.hindsightSampleTemperature,
    seed: ctx.seed ?? 0,
  });
  // hindsightTarget "teacher": each demonstration keeps the hinted prompt it came from, whose distribution it follows
  return config.hyper.hindsightTarget === "teacher"
    ? demos.map(({ hintedPromptIds, ...d }) => ({ ...d, teacherPromptIds: hintedPromptIds }))
    : demos;
}

/** What the hinted teacher needs of a corrected turn: the served request, its prompt ids, and the turn's hint. */
export type HintedTurn = Pick<HindsightSource, "messages" | "tools" | "promptIds" | "hint" | "earlierHints">;

/**
 * The teacher half of hindsight, shared by the policy trainer (OPD, Combine) and the per-user adapters
 * (personalization/train.ts): for every turn with a hint, `samples` replies sampled (at `temperature`, `seed`) from
 * `base` — the frozen model with the hint in context — each a DEMO target for the un-hinted prompt the user first
 * asked. Only replies that pass `isDemonstration` are kept (the teacher is confident in them, ≥ `minLogprob`, and they
 * call no tool), and with `minGain` only those the hint made likelier: log π_hinted(reply) − log π_base(reply | the
 * un-hinted prompt) above it, summed over the reply — a confident reply the base writes as readily without the hint
 * (another user's style the base ties to that question, a memorised answer) is not what the hint asked for.
 */
export async function hintedTeacherDemos(
  base: PolicyModel,
  sources: readonly HintedTurn[],
  opts: {
    samples: number;
    minLogprob: number;
    minGain?: number;
    maxTokens: number;
    /** the sampling temperature (1 unless given: the teacher as it is) */
    temperature?: number;
    seed: number;
  },
): Promise<HintedDemo[]> {
  const ctxLen = base.config.ctx;
  const budget = ctxLen - opts.maxTokens;
  if (opts.samples < 1 || budget < 1) return [];
  const hinted = sources.flatMap((s) => {
    if (!s.hint) return [];
    // A reply corrected again after a correction: the demonstration goes on the prompt the user first asked, before
    // the corrections (what the first reply needs to learn), with the hint on that prompt for the teacher.
    const before = promptBeforeCorrections(s.messages);
    const request = before ? parseChatRequest(before, s.tools) : null;
    const promptIds = request
      ? fitChat(request.messages, budget, { addGenerationPrompt: true, tools: request.tools })
      : s.promptIds;
    const hint = conversationHint(s.hint, s.earlierHints);
    const ids = hintedPromptIds(before ?? s.messages, s.tools, hint, budget);
    return ids ? [{ promptIds, hinted: ids }] : [];
  });
  if (!hinted.length) return [];
  const jobs = hinted.flatMap((h) => Array.from({ length: opts.samples }, () => h));
  const gens = await generateBatch(
    base,
    jobs.map((j) => j.hinted),
    { maxTokens: opts.maxTokens, temperature: opts.temperature ?? 1, seed: opts.seed },
  );
  const kept = gens.flatMap((g, i) =>
    jobs[i].promptIds.length + g.tokenIds.length <= ctxLen && isDemonstration(g, opts.minLogprob)
      ? [{ ...hindsightDemo(jobs[i].promptIds, g.tokenIds, g.logprobs), hintedPromptIds: jobs[i].hinted }]
      : [],
  );
  if (opts.minGain === undefined || !kept.length) return kept;
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
  const unhinted = scoreBatch(base, kept);
  return kept.filter((d, i) => sum(d.oldLogprobs) - sum(unhinted[i]!) > opts.minGain!);
}

/** A hindsight demonstration with the hinted prompt it was sampled from (the teacher's context for its tokens). */
export type HintedDemo = TrainSample & { hintedPromptIds: number[] };

/** A demonstration: trained by cross-entropy only, on the first reply's prompt. */
function hindsightDemo(promptIds: number[], responseIds: number[], logprobs: number[]): TrainSample {
  return { promptIds, responseIds, oldLogprobs: logprobs, reward: 0, kind: "DEMO", context: "first" };
}
