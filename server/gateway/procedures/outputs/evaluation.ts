// Output schemas of the evaluation procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";
import { Json, Num } from "./common";

export const EvaluationSetsOutput = z.array(
  z.object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    latestVersion: Num,
    versions: z.array(
      z.object({ id: z.string(), version: Num, source: z.string(), items: Num, createdAt: z.string() }),
    ),
  }),
);

export const EvaluationSetOutput = z.object({
  id: z.string(),
  name: z.string(),
  version: Num,
  setVersionId: z.string(),
  source: z.string(),
  items: z.array(
    z.object({
      id: z.string(),
      key: z.string(),
      messages: Json,
      reference: z.string().nullable(),
      rubric: z.string().nullable(),
      persona: z.string().nullable(),
      sourceTurnId: z.string().nullable(),
    }),
  ),
});

export const EvaluationDownloadOutput = z.object({ name: z.string(), version: Num, jsonl: z.string() });

export const EvaluationUploadOutput = z.object({
  setId: z.string(),
  setVersionId: z.string(),
  version: Num,
  items: Num,
});

export const EvaluationAddTurnsOutput = z.object({
  setId: z.string(),
  setVersionId: z.string(),
  version: Num,
  items: Num,
});

export const EvaluationPersonaSetOutput = z.object({
  setId: z.string(),
  setVersionId: z.string(),
  version: Num,
  items: Num,
});

/** One evaluation as the Evaluation page lists it (service.ts evaluationOverview `view`). */
const EvaluationView = z.object({
  id: z.string(),
  version: Num,
  status: z.string(),
  grader: z.string(),
  graderVersion: z.string(),
  mean: Num.nullable(),
  ciLow: Num.nullable(),
  ciHigh: Num.nullable(),
  items: Num,
  replies: Num,
  promptTokens: Num,
  replyTokens: Num,
  durationMs: Num,
  error: z.string().nullable(),
  set: z.string(),
  setVersionId: z.string(),
  /** the draw of seeds: 0 the common one; ≥ 1 the gate's fresh draws (serving.gate.confirm) */
  draw: Num,
  finishedAt: z.string().nullable(),
});

export const EvaluationOverviewOutput = z.object({
  experimentId: z.string(),
  servedVersion: Num,
  promotion: z.enum(["always", "gated"]),
  gate: z.object({ tolerance: Num, floor: Num.optional(), set: z.string().optional(), confirm: z.boolean() }),
  evaluationEnabled: z.boolean(),
  set: z.object({ id: z.string(), name: z.string(), version: Num, setVersionId: z.string(), items: Num }).nullable(),
  /** the gate's own set (serving.gate.set) when it is another than `set`; version null: named, not created yet */
  gateSet: z.object({ name: z.string(), version: Num.nullable(), items: Num }).nullable(),
  versions: z.array(
    z.object({
      version: Num,
      status: z.string(),
      step: Num.nullable(),
      gateReason: z.string().nullable(),
      evaluation: EvaluationView.nullable(),
      /**
       * the score the gate read: on its own set (serving.gate.set), on the latest draw it compared this version on
       * (serving.gate.confirm); null when it reads the reported score
       */
      gateEvaluation: EvaluationView.nullable(),
      trainingReward: Num.nullable(),
      rewardTurns: Num,
    }),
  ),
  candidates: z.array(z.object({ version: Num, reason: z.string().nullable(), evaluation: EvaluationView.nullable() })),
  recent: z.array(EvaluationView),
});

export const EvaluationCompareOutput = z.object({
  setVersionId: z.string(),
  a: z.object({
    version: Num,
    mean: Num.nullable(),
    ciLow: Num.nullable(),
    ciHigh: Num.nullable(),
    grader: z.string(),
    graderVersion: z.string(),
  }),
  b: z.object({
    version: Num,
    mean: Num.nullable(),
    ciLow: Num.nullable(),
    ciHigh: Num.nullable(),
    grader: z.string(),
    graderVersion: z.string(),
  }),
  items: z.array(
    z.object({
      key: z.string(),
      messages: Json,
      persona: z.string().nullable(),
      a: z.object({
        mean: Num.nullable(),
        replies: z.array(
          z.object({
            sample: Num,
            reply: z.string(),
            score: Num,
            detail: Json,
          }),
        ),
      }),
      b: z.object({
        mean: Num.nullable(),
        replies: z.array(
          z.object({
            sample: Num,
            reply: z.string(),
            score: Num,
            detail: Json,
          }),
        ),
      }),
    }),
  ),
});

export const EvaluationAgreementOutput = z.object({
  currentJudgeVersion: z.string(),
  thresholds: z.object({ kappaThreshold: Num, minLabeled: Num }),
  warning: z.string().nullable(),
  judges: z.array(
    z.object({
      judgeVersion: z.string(),
      judgeKind: z.string(),
      model: z.string(),
      disagreements: z.array(
        z.object({
          turnId: z.string(),
          sessionId: z.string(),
          human: Num,
          humanSource: z.enum(["REVIEWER", "USER"]),
          judge: Num,
          createdAt: z.string(),
        }),
      ),
      n: Num,
      accuracy: Num.nullable(),
      kappa: Num.nullable(),
      confusion: z.array(z.array(Num)),
    }),
  ),
});

export const EvaluationRequestOutput = z.object({ queued: z.boolean(), version: Num, setVersionId: z.string() });

export const EvaluationGetOutput = z.object({
  createdAt: z.string(),
  scores: z.array(
    z.object({
      key: z.string(),
      sample: Num,
      seed: Num,
      reply: z.string(),
      score: Num,
      detail: Json,
      replyTokens: Num,
      latencyMs: Num,
    }),
  ),
  error: z.string().nullable(),
  status: z.string(),
  id: z.string(),
  experimentId: z.string(),
  startedAt: z.date().nullable(),
  policyVersion: Num,
  grader: z.string(),
  durationMs: Num,
  promptTokens: Num,
  settings: Json,
  items: Num,
  setVersionId: z.string(),
  graderVersion: z.string(),
  replies: Num,
  mean: Num.nullable(),
  ciLow: Num.nullable(),
  ciHigh: Num.nullable(),
  replyTokens: Num,
  finishedAt: z.date().nullable(),
});

export const EvaluationLearningOutput = z.object({
  experimentId: z.string(),
  /** adapter: the versions are the end users' adapter versions, pooled over users (a per-user experiment) */
  versionsOf: z.enum(["policy", "adapter"]),
  verdict: z.enum(["too early", "learning", "fitting the judge", "flat", "getting worse"]),
  reason: z.string(),
  rule: z.string(),
  judgedGain: Num.nullable(),
  heldOutGain: Num.nullable(),
  versions: z.array(
    z.object({
      version: Num,
      turns: Num,
      reward: Num,
      firstTurns: Num,
      firstReward: Num.nullable(),
      heldOut: Num.nullable(),
      hinted: Num,
      hintAcceptance: Num.nullable(),
    }),
  ),
  stableEffect: z.object({
    sessions: Num,
    sessionsUntilStable: Num.nullable(),
    byUser: z.array(z.object({ user: z.string(), sessions: Num, sessionsUntilStable: Num.nullable() })),
  }),
});

/** A 95% interval around a proportion (Wilson) or a pass@k over tasks. */
const Proportion = z.object({ n: Num, c: Num, mean: Num.nullable(), low: Num.nullable(), high: Num.nullable() });
const TaskPassRate = z.object({ k: Num, tasks: Num, mean: Num.nullable(), low: Num.nullable(), high: Num.nullable() });

export const EvaluationTaskPassRatesOutput = z.object({
  configured: z.boolean(),
  k: Num.nullable(),
  taskSet: z.object({ id: z.string(), name: z.string(), version: Num }).nullable(),
  environment: z.object({ id: z.string(), name: z.string() }).nullable(),
  heldOutTasks: Num,
  versions: z.array(
    z.object({
      version: Num,
      /** ACTIVE, CANDIDATE, … (BASE: version 0) */
      status: z.string().nullable(),
      gateReason: z.string().nullable(),
      episodes: Num,
      pending: Num,
      failed: Num,
      passAt1: Proportion,
      passAtK: TaskPassRate,
    }),
  ),
});
