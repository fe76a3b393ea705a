// zod inputs of the environment services (environments, task sets, oracle runs, episodes).
import { z } from "zod";
import { ESTIMATORS } from "./advantages/group";
import { environmentHarnessSchema } from "./harness/schema";
import { networkPolicySchema, sandboxLimitsSchema } from "./sandbox/limits";
import { PROVIDERS } from "./sandbox/registry";
import { POOL_PROTOCOLS } from "./sandbox/remote/wire";
import { TOOL_NAMES } from "./tasks/spec";

const id = z.string().min(1).max(64);
const experiment = z.string().min(1).max(200);
const name = z.string().trim().min(1).max(100);

/** `bash` runs a command in the sandbox (terminal tasks); the others answer tool-call tasks. */
export const ENVIRONMENT_TOOLS = ["bash", ...TOOL_NAMES] as const;

/** The local sandboxes, and `remote-pool`: environments on other machines behind the fork's pool servers. */
export const ENVIRONMENT_PROVIDERS = [...PROVIDERS, "remote-pool"] as const;
export type EnvironmentProvider = (typeof ENVIRONMENT_PROVIDERS)[number];

/** A remote-pool environment's pools: one protocol, the pools' base URLs (the fork's WORKER_URLS). */
export const environmentPoolSchema = z.object({
  protocol: z.enum(POOL_PROTOCOLS),
  urls: z.array(z.string().trim().url().max(2000)).min(1).max(16),
});
export type EnvironmentPool = z.output<typeof environmentPoolSchema>;

export const EnvironmentCreateInput = z
  .object({
    experiment,
    name,
    provider: z.enum(ENVIRONMENT_PROVIDERS).default("local-bwrap"),
    limits: sandboxLimitsSchema.default(sandboxLimitsSchema.parse({})),
    network: networkPolicySchema.default("none"),
    tools: z.array(z.enum(ENVIRONMENT_TOOLS)).min(1).max(ENVIRONMENT_TOOLS.length).default(["bash"]),
    /** remote-pool only (required there). Each URL must also pass the egress policy (checked on save). */
    pool: environmentPoolSchema.optional(),
    /** A stock agent run as a black box in place of our agent loop (local-bwrap only: docs/harness.md). */
    harness: environmentHarnessSchema.optional(),
  })
  .superRefine((v, ctx) => {
    if (v.provider === "remote-pool" && !v.pool)
      ctx.addIssue({ code: "custom", path: ["pool"], message: "a remote-pool environment needs its pools" });
    if (v.provider !== "remote-pool" && v.pool)
      ctx.addIssue({ code: "custom", path: ["pool"], message: `pools belong to remote-pool, not ${v.provider}` });
    // The harness reaches the proxy through a unix socket bound into the sandbox: only bubblewrap binds one
    // per command (a container's mounts are fixed at run; a pool's sandbox is not ours).
    if (v.harness && v.provider !== "local-bwrap")
      ctx.addIssue({ code: "custom", path: ["harness"], message: `a harness runs on local-bwrap, not ${v.provider}` });
  });
export const EnvironmentListInput = z.object({ experiment });
export const EnvironmentGetInput = z.object({ id });

/** A base64 tar.gz stays under the REST body cap with room to spare. */
export const MAX_ARCHIVE_BASE64 = 48 * 1024 * 1024;

export const TaskSetImportInput = z
  .object({
    experiment,
    name,
    description: z.string().max(2000).optional(),
    format: z.enum(["harbor", "jsonl"]),
    /** harbor: a tar or tar.gz of one task folder or of several, base64 */
    archiveBase64: z.string().max(MAX_ARCHIVE_BASE64).optional(),
    /** jsonl: the tool-call tasks, one per line */
    text: z
      .string()
      .max(16 * 1024 * 1024)
      .optional(),
    splitSeed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .default(0),
    heldOutFraction: z.number().min(0).max(0.9).default(0.2),
  })
  .superRefine((v, ctx) => {
    if (v.format === "harbor" && !v.archiveBase64)
      ctx.addIssue({ code: "custom", path: ["archiveBase64"], message: "a Harbor import needs the archive" });
    if (v.format === "jsonl" && v.text === undefined)
      ctx.addIssue({ code: "custom", path: ["text"], message: "a JSONL import needs the text" });
  });
export const TaskSetListInput = z.object({ experiment });
export const TaskSetGetInput = z.object({ id, version: z.coerce.number().int().min(1).optional() });

export const OracleRunInput = z.object({
  taskSetId: id,
  version: z.number().int().min(1).optional(),
  /** Whose sandbox limits the oracle runs under. */
  environmentId: id,
  repeats: z.number().int().min(1).max(5).default(2),
});

export const EpisodeListInput = z.object({
  experiment,
  taskId: id.optional(),
  environmentId: id.optional(),
  /** The launch's id: its episodes' group keys start with it. */
  launchId: id.optional(),
  status: z.enum(["QUEUED", "RUNNING", "DONE", "FAILED"]).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** Most episodes one launch may queue. */
export const MAX_LAUNCH_EPISODES = 2000;

/** n episodes of every chosen task (a GRPO group per task), queued for workers/episodes. */
export const EpisodeLaunchInput = z.object({
  environmentId: id,
  taskSetId: id,
  version: z.number().int().min(1).optional(),
  split: z.enum(["train", "heldout", "all"]).default("train"),
  /** Only these tasks (by key); default every task of the split. */
  taskKeys: z.array(z.string().min(1).max(128)).min(1).max(1000).optional(),
  /** Upstream's GRPO groups hold 8. */
  n: z.number().int().min(1).max(64).default(8),
  /** Upstream: 16 tool calls (ReTool), 10 iterations (terminal). */
  maxSteps: z.number().int().min(1).max(64).default(10),
  /** Completion tokens per episode across its steps (upstream #104: truncation); none by default. */
  maxTokens: z.number().int().min(1).max(1_000_000).optional(),
  estimator: z.enum(ESTIMATORS).default("grpo"),
  /** Step PRM: the judge's votes on each step become its score (the group waits for them a while). */
  prm: z.boolean().default(false),
});
export const EpisodeGetInput = z.object({ id });
/** One stored screenshot of a GUI episode: index 0 is the desktop after reset, k the one after step k - 1. */
export const EpisodeScreenshotInput = z.object({ id, index: z.coerce.number().int().min(0).max(10_000) });

/** A launch's pass@1 and pass@k per task and over its tasks (held-out launches are its evaluation). */
export const LaunchSummaryInput = z.object({
  experiment,
  launchId: id,
  k: z.coerce.number().int().min(1).max(64).default(4),
});

/**
 * A standing launch ("keep launching while training"): a launch's episode settings over the train split only,
 * kept topped up to `maxGroupsInFlight` groups queued or running until it is stopped.
 */
export const StandingLaunchStartInput = EpisodeLaunchInput.omit({ split: true, taskKeys: true })
  .extend({
    /** Groups (n episodes of one train task each) queued or running at once. */
    maxGroupsInFlight: z.number().int().min(1).max(64).default(4),
  })
  .superRefine((v, ctx) => {
    if (v.n * v.maxGroupsInFlight > MAX_LAUNCH_EPISODES)
      ctx.addIssue({
        code: "custom",
        path: ["maxGroupsInFlight"],
        message: `${v.maxGroupsInFlight} groups × ${v.n} = ${v.n * v.maxGroupsInFlight} episodes in flight; at most ${MAX_LAUNCH_EPISODES}`,
      });
  });
export const StandingLaunchStopInput = z.object({ id });
export const StandingLaunchListInput = z.object({ experiment });
