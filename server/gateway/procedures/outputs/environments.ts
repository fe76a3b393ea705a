// Output schemas of the environments, taskSets and episodes procedures (drafted by
// scripts/draft-output-schemas.ts from the handlers' types; the shared rows named once).
import { z } from "zod";
import { Json, Num } from "./common";

export const EnvironmentOutput = z.object({
  id: z.string(),
  experimentId: z.string(),
  name: z.string(),
  provider: z.string(),
  limits: Json,
  network: z.string(),
  tools: Json,
  pool: Json,
  harness: Json,
  createdAt: z.date(),
  updatedAt: z.date(),
});
export const EnvironmentsOutput = z.array(EnvironmentOutput);
export const EnvironmentGetOutput = EnvironmentOutput.extend({
  health: z.union([
    z.object({ ok: z.literal(true), detail: z.string() }),
    z.object({ ok: z.literal(false), reason: z.string() }),
  ]),
  episodes: z.object({ QUEUED: Num, RUNNING: Num, DONE: Num, FAILED: Num }),
  /** running episodes that hold a sandbox or pool lease now */
  activeLeases: Num,
  recent: z.object({
    episodes: Num,
    failed: Num,
    truncationRatio: Num.nullable(),
    execP50Ms: Num.nullable(),
    execP95Ms: Num.nullable(),
    toolWaitShare: Num.nullable(),
    allocateP50Ms: Num.nullable(),
    allocateP95Ms: Num.nullable(),
    evaluateP50Ms: Num.nullable(),
    evaluateP95Ms: Num.nullable(),
  }),
});

const TaskSetRow = z.object({
  id: z.string(),
  experimentId: z.string(),
  name: z.string(),
  description: z.string(),
  latestVersion: Num,
  createdAt: z.date(),
  updatedAt: z.date(),
});
export const TaskSetsOutput = z.array(TaskSetRow);
export const TaskSetGetOutput = TaskSetRow.extend({
  version: z.object({
    id: z.string(),
    setId: z.string(),
    version: Num,
    format: z.string(),
    splitSeed: Num,
    heldOutFraction: Num,
    taskCount: Num,
    createdAt: z.date(),
  }),
  tasks: z.array(
    z.object({
      id: z.string(),
      index: Num,
      key: z.string(),
      kind: z.string(),
      split: z.string(),
      instruction: z.string(),
      oracleStatus: z.string().nullable(),
      oracleAt: z.date().nullable(),
    }),
  ),
});
export const TaskSetImportOutput = z.object({ id: z.string(), versionId: z.string(), version: Num, taskCount: Num });
export const OracleRunOutput = z.object({
  taskSetId: z.string(),
  version: Num,
  results: z.array(
    z.object({
      key: z.string(),
      status: z.enum(["verified", "flaky", "impossible", "trivial", "no_solution", "broken"]),
    }),
  ),
});

const EpisodeRow = z.object({
  id: z.string(),
  experimentId: z.string(),
  environmentId: z.string(),
  taskId: z.string(),
  groupKey: z.string().nullable(),
  sampleIndex: Num.nullable(),
  status: z.enum(["QUEUED", "RUNNING", "DONE", "FAILED"]),
  sessionId: z.string().nullable(),
  leaseId: z.string().nullable(),
  leaseProvider: z.string().nullable(),
  outcome: Num.nullable(),
  outcomeDetail: Json,
  truncation: z.string().nullable(),
  error: z.string().nullable(),
  estimator: z.string(),
  prm: z.boolean(),
  maxSteps: Num,
  maxTokens: Num.nullable(),
  attempts: Num,
  heartbeatAt: z.date().nullable(),
  createdAt: z.date(),
  startedAt: z.date().nullable(),
  finishedAt: z.date().nullable(),
  /** The standing launch that queued it (null: a launch by hand). */
  standingLaunchId: z.string().nullable(),
  task: z.object({ key: z.string(), kind: z.string(), split: z.string() }),
});
export const EpisodesOutput = z.array(EpisodeRow);
export const EpisodeGetOutput = EpisodeRow.extend({
  steps: z.array(
    z.object({
      id: z.string(),
      episodeId: z.string(),
      index: Num,
      turnId: z.string().nullable(),
      action: Json,
      observation: Json,
      prmVotes: Json,
      prmScore: Num.nullable(),
      advantage: Num.nullable(),
      createdAt: z.date(),
    }),
  ),
  /** The GUI screenshots stored with the episode (their images: episodes.screenshot). */
  screenshots: z.array(z.object({ index: Num })),
});
export const EpisodeScreenshotOutput = z.object({
  episodeId: z.string(),
  index: Num,
  mimeType: z.literal("image/png"),
  base64: z.string(),
});
export const EpisodeLaunchOutput = z.object({
  launchId: z.string(),
  episodes: Num,
  groups: Num,
  taskSetId: z.string(),
  version: Num,
});

const PassRate = z.object({ k: Num, tasks: Num, mean: Num.nullable(), low: Num.nullable(), high: Num.nullable() });
export const LaunchSummaryOutput = z.object({
  launchId: z.string(),
  episodes: Num,
  pending: Num,
  failed: Num,
  truncated: Num,
  policyVersions: z.array(Num),
  passAt1: PassRate,
  passAtK: PassRate,
  tasks: z.array(
    z.object({
      key: z.string(),
      split: z.string(),
      n: Num,
      c: Num,
      passAt1: Num.nullable(),
      passAtK: Num.nullable(),
    }),
  ),
});

/** A standing launch with its groups queued or running now (groupsLaunched counts every group it launched). */
export const StandingLaunchOutput = z.object({
  id: z.string(),
  experimentId: z.string(),
  environmentId: z.string(),
  taskSetId: z.string(),
  version: Num,
  n: Num,
  maxSteps: Num,
  maxTokens: Num.nullable(),
  estimator: z.string(),
  prm: z.boolean(),
  maxGroupsInFlight: Num,
  groupsLaunched: Num,
  groupsInFlight: Num,
  active: z.boolean(),
  /** Active, but its experiment has no live run: it launches nothing until one starts. */
  waitingForRun: z.boolean(),
  stoppedAt: z.date().nullable(),
  stopReason: z.string().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export const StandingLaunchesOutput = z.array(StandingLaunchOutput);
