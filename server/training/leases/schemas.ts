// Contracts of the batch API external trainers (slime through integrations/slime, Tinker through
// integrations/tinker) use: lease a batch, train it, acknowledge it with the step, report progress.
import { z } from "zod";
import { IdSchema, LimitSchema } from "../../platform/schemas";

const httpUrl = z
  .string()
  .max(2000)
  .url("must be a URL such as http://10.0.0.5:30000/v1")
  .refine((u) => /^https?:\/\//.test(u), "must start with http:// or https://");

/** Metric name → value; names such as slime's `train/loss` or `rollout/raw_reward`. */
export const MetricMapSchema = z
  .record(z.string().min(1).max(200), z.number().finite("metric values must be finite numbers"))
  .refine((m) => Object.keys(m).length <= 500, "at most 500 metrics per call")
  .default({});

/** Long enough for a few training steps; the trainer renews leases it still needs through /report. */
export const DEFAULT_LEASE_SECONDS = 600;
const LeaseSeconds = z.number().int().min(5, "at least 5 seconds").max(86_400, "at most a day");

export const LeaseInput = z
  .object({
    /** Most samples to hand out (slime: --rollout-batch-size). */
    size: z.number().int().min(1).max(4096),
    /** Fewer ready samples than this: no lease, nothing held (slime asks for a full batch: minSize = size). */
    minSize: z.number().int().min(1).max(4096).default(1),
    leaseSeconds: LeaseSeconds.default(DEFAULT_LEASE_SECONDS),
    /** Retry key (e.g. "<job instance>:<rollout id>"): the same key returns the same unacknowledged lease. */
    requestKey: z.string().min(1).max(200).optional(),
  })
  .refine((l) => l.minSize <= l.size, { path: ["minSize"], message: "minSize must be ≤ size" });
export type LeaseInputT = z.output<typeof LeaseInput>;

export const AckInput = z.object({
  /** The trainer's step that trained the batch (slime: the rollout id). Unique per run. */
  step: z.number().int().min(0),
  metrics: MetricMapSchema,
  /** The trainer's own weight version after the step (slime's update count, Tinker's save index). */
  weightVersion: z.number().int().min(0).optional(),
  /**
   * Where the trainer saved the new weights (slime --save dir, a tinker:// sampler path), if it did. For a per-user
   * lease: the user's new PEFT folder, registered as their next served version (inside ADAPTER_DIRS).
   */
  checkpointPath: z.string().min(1).max(2000).optional(),
  durationMs: z.number().int().min(0).optional(),
});
export type AckInputT = z.output<typeof AckInput>;

export const ReportInput = z.object({
  metrics: MetricMapSchema,
  /** Step the metrics belong to (omitted: plotted by time only). */
  step: z.number().int().min(0).optional(),
  weightVersion: z.number().int().min(0).optional(),
  /** OpenAI-compatible base URL of the job's rollout engine; the proxy forwards the run's traffic there. */
  rolloutUrl: httpUrl.optional(),
  /**
   * The job's PRM engines' router (SGLang native API base, e.g. http://10.0.0.5:3789; slime fork --prm-*): while
   * the run is live the judge worker scores this experiment's votes and teacher log-probs there.
   */
  prmUrl: httpUrl.optional(),
  /** A separate PRM teacher's router (4-way split), for teacher log-probs; prmUrl when absent. */
  prmTeacherUrl: httpUrl.optional(),
  /** The model the PRM engines serve (--prm-model-path), shown beside the endpoint. */
  prmModelPath: z.string().min(1).max(2000).optional(),
  /** Short human-readable state ("waiting for 16 samples", "training step 12"), shown on the run. */
  message: z.string().max(2000).optional(),
  /** Leases the trainer still holds (leased, not yet acknowledged): their expiry moves to now + leaseSeconds. */
  renewLeaseIds: z.array(IdSchema).max(64).default([]),
  leaseSeconds: LeaseSeconds.default(DEFAULT_LEASE_SECONDS),
});
export type ReportInputT = z.output<typeof ReportInput>;

export const LeaseParams = z.object({ id: IdSchema, leaseId: IdSchema });
export const LeaseListInput = z.object({ limit: LimitSchema });
export const LogsQuery = z.object({ tail: z.coerce.number().int().min(1).max(5000).default(200) });

export interface LeasedSample {
  sampleId: string;
  turnId: string;
  sessionId: string;
  turnIndex: number;
  /** The end user the turn served (an identity key named them); null for unattributed traffic. */
  endUserId: string | null;
  /** RL: reward only; OPD: teacher log-probs; BOTH: both (combine). */
  kind: "RL" | "OPD" | "BOTH";
  reward: number;
  labelSource: "REVIEWER" | "USER" | "JUDGE";
  /** 1 on the first lease; more when an earlier lease expired before it was acknowledged. */
  attempt: number;
  /**
   * The prompt as served (system blob + the lane's message deltas) and its tools: the trainer renders it
   * with the policy's own chat template, as the reference does, since only it holds the policy tokenizer.
   */
  messages: unknown[];
  tools: unknown[] | null;
  response: { content: string | null; toolCalls: unknown; reasoning: string | null; finishReason: string | null };
  /** The response tokens exactly as the rollout engine sampled them (empty when the upstream gave none). */
  responseTokenIds: number[];
  /** 1 per response token (excluded samples are never leased). */
  lossMask: number[];
  /** Behaviour log-probs of responseTokenIds under the serving policy. */
  rolloutLogprobs: number[];
  /** Teacher log-probs for OPD/BOTH samples (null for RL, or when a reviewer's hint has not been scored yet). */
  teacherLogprobs: number[] | null;
  hint: string | null;
  /**
   * Every hint the judge accepted, shortest first (candidate 0 is `hint`), when there are several and `hint` is
   * the judge's (server/labels/effective.ts): hint selection token_optimal / sequence_optimal choose among them.
   */
  hintCandidates: string[] | null;
  /** The policy version that served the turn, and how many versions behind it was when the sample was made. */
  policyVersion: number;
  staleness: number | null;
}

/**
 * A per-user lease's user: their served (PROMOTED) version, which a restarted trainer resumes from, and their latest
 * version number over all states, past which the trainer numbers its next folder (a name is never reused).
 */
export interface LeasedUserAdapter {
  served: { version: number; path: string | null } | null;
  latestVersion: number;
}

export interface LeaseResult {
  /** null when fewer than minSize samples were ready (nothing is held). */
  leaseId: string | null;
  expiresAt: string | null;
  /** true when the run is paused: no samples are handed out until it resumes. */
  paused: boolean;
  /** Ready samples left in the pool after this lease. */
  available: number;
  /** The experiment's serving version now (0 = base checkpoint). */
  policyVersion: number;
  /**
   * A per-user experiment's lease holds one end user's samples only: train them into that user's adapter alone.
   * null: a shared experiment (or no lease).
   */
  endUserId: string | null;
  /**
   * A per-user lease: the user's served version (`path`: its folder or sampler path; a trainer restarted since it
   * wrote it resumes the user from there) and their latest version number over all states (the trainer numbers its
   * next folder past it, so no name is reused). null: not a per-user lease.
   */
  adapter: LeasedUserAdapter | null;
  samples: LeasedSample[];
}

export interface AckResult {
  leaseId: string;
  step: number;
  trainingStepId: string;
  policyVersion: number;
  policyVersionStatus: "ACTIVE" | "CANDIDATE";
  /** Samples this acknowledgement marked trained (those still held by the lease). */
  trainedSamples: number;
  /** Samples of the lease that expired and went to another lease before this acknowledgement. */
  lostSamples: number;
  /** true when this exact acknowledgement had already been recorded (nothing changed). */
  replayed: boolean;
  /** A per-user lease acknowledged with a checkpointPath: the user's adapter version it registered (PROMOTED, or a CANDIDATE the engine gate decides). */
  adapter: { endUserId: string; adapterId: string; version: number; state: string } | null;
}

export interface ReportResult {
  runStatus: string;
  /** The run is over (stopped, finished, failed, crashed): the trainer should exit. */
  stop: boolean;
  paused: boolean;
  renewed: { leaseId: string; expiresAt: string; held: number }[];
  policyVersion: number;
  /**
   * The last step this run recorded: a restarted trainer numbers its steps past it, since a step is recorded once
   * (acknowledging step 1 again is refused, and the batch trained for it would be lost).
   */
  lastStep: number;
  /** The newest version this run trained that has a checkpoint: what a restarted trainer resumes its weights from. */
  resume: { policyVersion: number; step: number | null; checkpointPath: string } | null;
}

export const EpisodeLeaseInput = z
  .object({
    /** Most finished GRPO groups to hand out (slime: --rollout-batch-size prompts). */
    groups: z.number().int().min(1).max(1024),
    /** Fewer ready groups than this: no lease, nothing held (slime asks for a full batch: minGroups = groups). */
    minGroups: z.number().int().min(1).max(1024).default(1),
    leaseSeconds: LeaseSeconds.default(DEFAULT_LEASE_SECONDS),
    requestKey: z.string().min(1).max(200).optional(),
  })
  .refine((l) => l.minGroups <= l.groups, { path: ["minGroups"], message: "minGroups must be ≤ groups" });
export type EpisodeLeaseInputT = z.output<typeof EpisodeLeaseInput>;

export interface LeasedEpisodeStep {
  /** The step's place in its episode (step_wise buckets align steps across a group by it). */
  index: number;
  /** The judge's mean vote on the step (the step PRM), null when it did not vote. */
  prmScore: number | null;
  /** The step's score for step_wise: prmScore when present, else the episode's outcome. */
  score: number;
  /** The console's own estimate (server/environments/advantages/group.ts), for comparison; null when dropped. */
  advantage: number | null;
  /** The step's recorded turn: prompt as served, response tokens, behaviour log-probs. */
  sample: LeasedSample;
}

export interface LeasedEpisode {
  episodeId: string;
  sampleIndex: number | null;
  /** The verifier's reward (terminal) or the answer's score (tool-call). */
  outcome: number;
  /** How the console estimated the group (grpo | step_wise). */
  estimator: string;
  truncation: string | null;
  steps: LeasedEpisodeStep[];
}

export interface LeasedGroup {
  groupKey: string;
  taskId: string;
  taskKey: string;
  /** Members that FAILED (no outcome): left out, so a group may carry fewer than n episodes. */
  failed: number;
  episodes: LeasedEpisode[];
}

export interface EpisodeLeaseResult {
  leaseId: string | null;
  expiresAt: string | null;
  paused: boolean;
  /** Ready groups left after this lease. */
  available: number;
  policyVersion: number;
  groups: LeasedGroup[];
}
