// From Sample rows to the engine's TrainSample: the prompt exactly as the proxy's embedded upstream
// rendered it when it served the turn, the recorded response ids and behaviour log-probs, the reward and
// kind the loss needs, and the teacher log-probs (the judgment's, or a reviewer hint scored now).
import { z } from "zod";
import { db } from "../platform/db/client";
import type { PolicyModel } from "../engine/model";
import { scoreBatch } from "../engine/score";
import { parseChatRequest } from "../engine/request";
import { fitChat, servedPrompt } from "../engine/fit";
import type { TrainSample } from "../engine/train";
import type { ExperimentConfig } from "../config/experimentConfig";
import { ChatMessageSchema } from "../judge/core/schemas";
import { hintedTeacherMessages } from "../judge/core/teacher";
import type { TeacherScorer } from "../judge/core/teacherClients";
import { effectiveLabelsForTurns, type TrainingLabel } from "../labels/effective";
import { reassembleMessages } from "../recording/reassemble";
import { decideSample, type SampleDecision } from "./decide";
import { TRAINER_EXCLUDE, type TraceEntry } from "./schemas";
import { importanceWeight, isTooStale } from "./staleness";

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
}

export interface BuildContext {
  runId: string;
  config: ExperimentConfig;
  /** the version the model below is at */
  currentVersion: number;
  model: PolicyModel;
  /** scores reviewer hints (the frozen base, as the judge's embedded teacher) */
  teacher: () => TeacherScorer;
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
  };
  const stale: number[] = [];
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
    let teacherSource: TraceEntry["teacher"] = "none";
    const { opdEstimator, teacherSource: source } = config.hyper;
    if (decision.teacher && (opdEstimator !== "sampled" || source === "current")) {
      // The teacher is scored at step time: the whole distribution (topk/full) from the frozen base or the
      // current policy, or the current policy's log-probs of the sampled tokens (sampled + current).
      const hinted = hintedPromptIds(
        MessagesSchema.parse(messages),
        tools,
        label.hint!,
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
    out.samples.push({
      promptIds,
      responseIds: turn.tokenIds,
      oldLogprobs: turn.logprobs,
      reward: decision.reward,
      teacherLogprobs,
      teacherPromptIds,
      kind,
      weight: 1,
    });
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
  return out;
}
