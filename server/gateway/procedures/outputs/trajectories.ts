// Output schemas of the trajectory reads (sessions.*, turns.*). Each row shape is written once and composed:
// a session, a turn's summary columns (the session view), its conversation columns, and what annotate() puts
// beside an assistant turn (judgments with their votes, labels, samples, the effective training label, the
// OPD heatmap). Enums are the database's own (generated/enums.ts).
import { z } from "zod";
import { LabelSource, SampleKind, TurnStatus, TurnType } from "../../../platform/db/generated/enums";
import { Json, Num } from "./common";

const ExperimentRef = z.object({ name: z.string(), slug: z.string() });

const Session = z.object({
  id: z.string(),
  experimentId: z.string(),
  externalId: z.string(),
  idSource: z.string(),
  persona: z.string().nullable(),
  simulated: z.boolean(),
  done: z.boolean(),
  doneAt: z.date().nullable(),
  turnCount: Num,
  lastTurnAt: z.date(),
  createdAt: z.date(),
  experiment: ExperimentRef,
});

/** TURN_SUMMARY in trajectories/service.ts. */
const TurnSummary = z.object({
  id: z.string(),
  sessionId: z.string(),
  experimentId: z.string(),
  runId: z.string().nullable(),
  index: Num,
  turnType: z.enum(TurnType),
  typeSource: z.string(),
  status: z.enum(TurnStatus),
  simulated: z.boolean(),
  content: z.string().nullable(),
  finishReason: z.string().nullable(),
  policyVersion: Num,
  latencyMs: Num.nullable(),
  ttftMs: Num.nullable(),
  promptTokens: Num.nullable(),
  completionTokens: Num.nullable(),
  nextStateRole: z.string().nullable(),
  nextStateAt: z.date().nullable(),
  createdAt: z.date(),
  error: z.string().nullable(),
  /** the end user and agent an identity key named, and the per-user adapter that served the turn */
  endUserId: z.string().nullable(),
  agentId: z.string().nullable(),
  adapterId: z.string().nullable(),
});

/** CONVERSATION_SELECT in trajectories/service.ts, less the token ids and log-probs annotate() drops. */
const ConversationColumns = TurnSummary.extend({
  messagesDelta: Json,
  messagesOffset: Num,
  toolCalls: Json,
  reasoning: z.string().nullable(),
  nextState: Json,
  upstreamModel: z.string().nullable(),
  systemHash: z.string().nullable(),
  toolsHash: z.string().nullable(),
});

const Vote = z.object({
  id: z.string(),
  judgmentId: z.string(),
  kind: z.string(),
  index: Num,
  value: Num.nullable(),
  hint: z.string().nullable(),
  raw: z.string(),
  error: z.string().nullable(),
  latencyMs: Num.nullable(),
});

const Judgment = z.object({
  id: z.string(),
  turnId: z.string(),
  judgeKind: z.string(),
  judgeVersion: z.string(),
  promptVersion: z.string(),
  model: z.string(),
  settings: Json,
  score: Num,
  evalScore: Num.nullable(),
  hint: z.string().nullable(),
  hintAccepted: z.boolean(),
  teacherLogprobs: z.array(Num),
  dispatch: z.string().nullable(),
  excluded: z.boolean(),
  excludeReason: z.string().nullable(),
  latencyMs: Num.nullable(),
  createdAt: z.date(),
  votes: z.array(Vote),
});

/** A label row (labels.list and labels.create answer these). */
export const LabelRow = z.object({
  id: z.string(),
  turnId: z.string(),
  source: z.enum(LabelSource),
  value: Num,
  hint: z.string().nullable(),
  exclude: z.boolean().nullable(),
  comment: z.string().nullable(),
  userId: z.string().nullable(),
  apiKeyId: z.string().nullable(),
  createdAt: z.date(),
});

/** A label beside its turn, with who gave it. */
const Label = LabelRow.extend({
  user: z.object({ email: z.string() }).nullable(),
  apiKey: z.object({ prefix: z.string() }).nullable(),
});

const Sample = z.object({
  id: z.string(),
  runId: z.string(),
  turnId: z.string(),
  stepId: z.string().nullable(),
  leaseId: z.string().nullable(),
  leaseCount: Num,
  kind: z.enum(SampleKind),
  labelSource: z.enum(LabelSource),
  reward: Num,
  staleness: Num.nullable(),
  excluded: z.boolean(),
  excludeReason: z.string().nullable(),
  createdAt: z.date(),
  step: z.object({ step: Num, policyVersion: Num, createdAt: z.date() }).nullable(),
});

/** labels/effective.ts TrainingLabel (also in a review submission's answer). */
export const TrainingLabel = z.object({
  turnId: z.string(),
  experimentId: z.string(),
  value: Num.nullable(),
  source: z.enum(LabelSource).nullable(),
  labelId: z.string().nullable(),
  judgmentId: z.string().nullable(),
  hint: z.string().nullable(),
  /** hint memory: the end user's earlier turn whose accepted hint `hint` is */
  hintFromTurnId: z.string().nullable(),
  needsTeacherRescore: z.boolean(),
  teacherLogprobs: z.array(Num).nullable(),
  kind: z.enum(SampleKind).nullable(),
  reward: Num,
  /** the reward is an agent episode step's group-normalised advantage */
  groupNormalized: z.boolean().optional(),
  excluded: z.boolean(),
  excludeReason: z.string().nullable(),
});

/** trajectories/heatmap.ts OpdHeatmap. */
const OpdHeatmap = z.object({
  cells: z.array(z.object({ text: z.string(), gap: Num, start: Num, tokens: Num })),
  tokenCount: Num,
  meanGap: Num,
  minGap: Num,
  maxGap: Num,
  decoded: z.boolean(),
  warning: z.string().nullable(),
});

/** What annotate() in trajectories/service.ts adds beside a turn. */
const Annotations = {
  responseTokens: Num,
  staleness: Num.nullable(),
  currentPolicyVersion: Num.nullable(),
  judgment: Judgment.extend({ agreement: z.object({ valid: Num, agree: Num }) }).nullable(),
  olderJudgments: z.array(Judgment),
  labels: z.array(Label),
  samples: z.array(Sample),
  training: TrainingLabel.nullable(),
  opd: OpdHeatmap.nullable(),
};

export const SessionsListOutput = z.object({ items: z.array(Session), nextCursor: z.string().nullable() });

export const SessionsGetOutput = Session.extend({ turns: z.array(TurnSummary) });

export const SessionsConversationOutput = z.object({
  /** The system prompt and tools, on the first page only. */
  system: Json,
  tools: Json,
  turns: z.array(ConversationColumns.extend(Annotations)),
  nextCursor: Num.nullable(),
});

/** trajectories/query.ts TurnRow with its search hits. */
export const TurnsListOutput = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      sessionId: z.string(),
      sessionExternalId: z.string(),
      experimentId: z.string(),
      runId: z.string().nullable(),
      index: Num,
      turnType: z.enum(TurnType),
      status: z.enum(TurnStatus),
      simulated: z.boolean(),
      preview: z.string().nullable(),
      finishReason: z.string().nullable(),
      policyVersion: Num,
      latencyMs: Num.nullable(),
      completionTokens: Num.nullable(),
      nextStateRole: z.string().nullable(),
      createdAt: z.date(),
      error: z.string().nullable(),
      judgmentId: z.string().nullable(),
      score: Num.nullable(),
      hasHint: z.boolean().nullable(),
      dispatch: z.string().nullable(),
      excluded: z.boolean().nullable(),
      excludeReason: z.string().nullable(),
      votesValid: Num.nullable(),
      votesAgree: Num.nullable(),
      reviewerValue: Num.nullable(),
      reviewerExclude: z.boolean().nullable(),
      userValue: Num.nullable(),
      disputed: z.boolean(),
      hits: z.array(z.object({ field: z.enum(["messages", "response", "next state"]), snippet: z.string() })),
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const TurnsGetOutput = ConversationColumns.extend(Annotations).extend({
  requestId: z.string(),
  params: Json,
  session: z.object({ externalId: z.string(), done: z.boolean() }),
  experiment: ExperimentRef,
  /** The full request, reassembled from the system blob and the lane's deltas: the messages as the client sent them. */
  messages: z.array(z.unknown()),
  tools: Json,
  audit: z.array(
    z.object({
      id: z.string(),
      action: z.string(),
      actor: z.string().nullable(),
      actorKeyId: z.string().nullable(),
      before: Json,
      after: Json,
      createdAt: z.date(),
    }),
  ),
  /** The experiment's training method (grpo, opd, combine). */
  method: z.string().nullable(),
});
