// Output schemas of the batches procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";
import { Num } from "./common";

/** One leased sample (server/training/leases/schemas.ts LeasedSample). */
const LeasedSampleOutput = z.object({
  sampleId: z.string(),
  turnId: z.string(),
  sessionId: z.string(),
  turnIndex: Num,
  /** the end user the turn served; null for unattributed traffic */
  endUserId: z.string().nullable(),
  kind: z.enum(["RL", "OPD", "BOTH"]),
  reward: Num,
  labelSource: z.enum(["REVIEWER", "USER", "JUDGE"]),
  attempt: Num,
  messages: z.array(z.unknown()),
  tools: z.array(z.unknown()).nullable(),
  response: z.object({
    content: z.string().nullable(),
    toolCalls: z.unknown(),
    reasoning: z.string().nullable(),
    finishReason: z.string().nullable(),
  }),
  responseTokenIds: z.array(Num),
  lossMask: z.array(Num),
  rolloutLogprobs: z.array(Num),
  teacherLogprobs: z.array(Num).nullable(),
  hint: z.string().nullable(),
  /** Every hint the judge accepted, shortest first, when the train-time hint selection can choose among them. */
  hintCandidates: z.array(z.string()).nullable(),
  policyVersion: Num,
  staleness: Num.nullable(),
});

export const BatchesLeaseOutput = z.object({
  leaseId: z.string().nullable(),
  expiresAt: z.string().nullable(),
  paused: z.boolean(),
  available: Num,
  policyVersion: Num,
  /** a per-user experiment's lease: the one end user every sample belongs to (train their adapter only) */
  endUserId: z.string().nullable(),
  /** a per-user lease: the user's served version (resume from its path) and their latest version number (number past it); null otherwise */
  adapter: z
    .object({
      served: z.object({ version: Num, path: z.string().nullable() }).nullable(),
      latestVersion: Num,
    })
    .nullable(),
  samples: z.array(LeasedSampleOutput),
});

export const BatchesAckOutput = z.object({
  leaseId: z.string(),
  step: Num,
  trainingStepId: z.string(),
  policyVersion: Num,
  policyVersionStatus: z.enum(["ACTIVE", "CANDIDATE"]),
  trainedSamples: Num,
  lostSamples: Num,
  replayed: z.boolean(),
  /** a per-user lease acknowledged with a checkpointPath: the user's adapter version registered (PROMOTED, or a CANDIDATE the engine gate decides) */
  adapter: z.object({ endUserId: z.string(), adapterId: z.string(), version: Num, state: z.string() }).nullable(),
});

export const BatchesReportOutput = z.object({
  runStatus: z.string(),
  stop: z.boolean(),
  paused: z.boolean(),
  renewed: z.array(z.object({ leaseId: z.string(), expiresAt: z.string(), held: Num })),
  policyVersion: Num,
  /** the run's last recorded step: a restarted trainer numbers past it */
  lastStep: Num,
  /** the run's newest trained version with a checkpoint: what a restarted trainer resumes its weights from */
  resume: z.object({ policyVersion: Num, step: Num.nullable(), checkpointPath: z.string() }).nullable(),
});

export const BatchesEpisodeLeaseOutput = z.object({
  leaseId: z.string().nullable(),
  expiresAt: z.string().nullable(),
  paused: z.boolean(),
  available: Num,
  policyVersion: Num,
  groups: z.array(
    z.object({
      groupKey: z.string(),
      taskId: z.string(),
      taskKey: z.string(),
      failed: Num,
      episodes: z.array(
        z.object({
          episodeId: z.string(),
          sampleIndex: Num.nullable(),
          outcome: Num,
          estimator: z.string(),
          truncation: z.string().nullable(),
          steps: z.array(
            z.object({
              index: Num,
              prmScore: Num.nullable(),
              score: Num,
              advantage: Num.nullable(),
              sample: LeasedSampleOutput,
            }),
          ),
        }),
      ),
    }),
  ),
});
