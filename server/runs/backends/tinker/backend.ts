// TrainerBackend for Tinker (Thinking Machines' remote LoRA training service): the control plane runs the
// Python bridge (integrations/tinker/bridge.py) as a child process in its own process group; the bridge
// leases batches from the batch API, trains them with the Tinker SDK and acknowledges each step. Tinker
// bills the user's own account, so it needs the user's own service key (TINKER_API_KEY): nothing starts
// without one.
import { z } from "zod";
import {
  RunLaunchSchema,
  type LaunchPlan,
  type RunHandle,
  type RunLaunch,
  type TrainerBackend,
  type TrainerStatus,
} from "../backend";
import { formatCommand } from "../slime/args";
import { ChildRuns } from "../localProcess/childRuns";

export const TINKER_BACKEND_KIND = "tinker";

/** Said when the bridge of a run is not a child of this process (e.g. the control plane restarted). */
export const TINKER_NOT_TRACKED = "no Tinker bridge process is tracked for this run in this control-plane process";

export const TinkerSettingsSchema = z.object({
  /** The user's own Tinker service key. */
  apiKey: z.string().min(1).optional(),
  /** Tinker base model (a Hugging Face id Tinker serves); defaults to the run's policy model. */
  baseModel: z.string().min(1).optional(),
  /** Tinker's built-in RL losses (https://tinker-docs.thinkingmachines.ai/losses). */
  loss: z.enum(["importance_sampling", "ppo", "cispo"]).default("importance_sampling"),
  python: z.string().min(1).default("python3"),
  /** Folder holding the `integrations` package (default: the control plane's working directory). */
  cwd: z.string().min(1).optional(),
  graceMs: z.number().int().min(0).default(10_000),
  /**
   * Serve the trained weights through the proxy: the bridge answers OpenAI chat completions on this port from
   * the latest step's sampler (integrations/tinker/serve.py) and reports it as the run's rolloutUrl.
   */
  serve: z
    .object({
      port: z.number().int().min(0).max(65_535),
      /** Where it listens (default 127.0.0.1: the bridge runs beside the control plane). */
      host: z.string().min(1).optional(),
      /** The address the proxy reaches it at, when not http://<host>:<port>/v1. */
      url: z.string().url().optional(),
    })
    .optional(),
});
export type TinkerSettings = z.output<typeof TinkerSettingsSchema>;

/** Variables the bridge inherits; the control plane's own secrets (database, session key) stay out. */
const INHERITED = [
  "PATH",
  "HOME",
  "USER",
  "LANG",
  "LC_ALL",
  "TZ",
  "TMPDIR",
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
  "HF_HOME",
  "TINKER_BASE_URL",
] as const;

/** The bridge's command and environment for a launch (also what the launch preview shows). */
export function tinkerCommand(
  launch: RunLaunch,
  settings: TinkerSettings,
): { argv: string[]; env: Record<string, string>; cwd: string } {
  const baseModel = settings.baseModel ?? launch.config.slime?.hfCheckpoint;
  if (!baseModel)
    throw new Error("Tinker needs a base model: set TINKER_BASE_MODEL or the policy model of the experiment");
  const h = launch.config.hyperparameters;
  const env: Record<string, string> = {
    CONTROL_PLANE_URL: launch.config.controlPlaneUrl,
    CONTROL_PLANE_API_KEY: launch.config.apiKey,
    RUN_ID: launch.runId,
    OPENCLAW_EXPERIMENT: launch.experimentSlug,
    OPENCLAW_METHOD: launch.config.method,
    OPENCLAW_COMBINE_W_OPD: String(h.wOpd),
    OPENCLAW_COMBINE_W_RL: String(h.wRl),
    TINKER_BASE_MODEL: baseModel,
    TINKER_LORA_RANK: String(launch.config.lora.rank),
    TINKER_LEARNING_RATE: String(h.lr),
    TINKER_BATCH_SIZE: String(h.batchSize),
    TINKER_LOSS: settings.loss,
    PYTHONUNBUFFERED: "1",
    // The bridge runs from the console checkout: no __pycache__ folders left in it.
    PYTHONDONTWRITEBYTECODE: "1",
  };
  if (settings.apiKey) env.TINKER_API_KEY = settings.apiKey;
  if (launch.config.perUser) {
    // One LoRA training client per end user (integrations/tinker/per_user.py); the users' samplers are served by the
    // bridge's endpoint (the experiment's policy.baseUrl), so there must be one.
    if (!settings.serve)
      throw new Error(
        "per-user Tinker serves each user's sampler from the bridge's endpoint: set TINKER_SERVE_PORT (and point the policy's baseUrl at it)",
      );
    env.TINKER_PER_USER = "1";
    env.TINKER_LORA_RANK = String(launch.config.perUser.rank);
  }
  if (settings.serve) {
    env.TINKER_SERVE_PORT = String(settings.serve.port);
    if (settings.serve.host) env.TINKER_SERVE_HOST = settings.serve.host;
    if (settings.serve.url) env.TINKER_SERVE_URL = settings.serve.url;
  }
  return { argv: [settings.python, "-m", "integrations.tinker.bridge"], env, cwd: settings.cwd ?? process.cwd() };
}

export class TinkerBackend implements TrainerBackend {
  readonly kind = TINKER_BACKEND_KIND;
  private readonly runs: ChildRuns;

  constructor(
    private readonly settings: TinkerSettings,
    maxLogLines = 10_000,
  ) {
    this.runs = new ChildRuns({
      label: "the Tinker bridge",
      jobPrefix: "tinker",
      notTracked: TINKER_NOT_TRACKED,
      inherited: INHERITED,
      graceMs: settings.graceMs,
      maxLogLines,
    });
  }

  preview(launch: RunLaunch): LaunchPlan {
    const { method, hyperparameters: h } = launch.config;
    // The bridge's per-token advantage (integrations/tinker/bridge.py), by method.
    const advantage =
      method === "grpo"
        ? "r (the judge's vote)"
        : method === "opd"
          ? "teacher − behaviour (the judge's teacher log-probs)"
          : `${h.wRl}·r + ${h.wOpd}·(teacher − behaviour)`;
    const notes = [
      "Trains on Tinker (remote LoRA service), billed to your own Tinker account.",
      `Method ${method}: Tinker's ${this.settings.loss} loss on the per-token advantage ${advantage}, with the recorded behaviour log-probs.`,
    ];
    if (!this.settings.apiKey) notes.push("TINKER_API_KEY is not set for the control plane: a launch would fail.");
    notes.push(
      this.settings.serve
        ? `The bridge serves the trained weights on port ${this.settings.serve.port} and reports it as the run's rollout URL: the proxy forwards this experiment's traffic there while the run is live.`
        : "The proxy keeps serving the configured policy: set TINKER_SERVE_PORT to serve the trained weights through it.",
    );
    return { command: formatCommand(tinkerCommand(launch, this.settings)), notes };
  }

  async start(input: RunLaunch): Promise<{ externalJobId: string }> {
    const launch = RunLaunchSchema.parse(input);
    if (!this.settings.apiKey) {
      throw new Error(
        "Tinker trains on your own Tinker account: set TINKER_API_KEY (your Tinker service key) for the control plane",
      );
    }
    return this.runs.start(launch.runId, tinkerCommand(launch, this.settings));
  }

  async stop(handle: RunHandle): Promise<void> {
    await this.runs.stop(handle.runId);
  }

  async status(handle: RunHandle): Promise<TrainerStatus> {
    return this.runs.status(handle.runId);
  }

  async logs(handle: RunHandle, opts: { tail?: number } = {}): Promise<string> {
    return this.runs.logs(handle.runId, opts.tail);
  }

  /** Ends every bridge this backend started (control-plane shutdown). */
  async stopAll(): Promise<void> {
    await this.runs.stopAll();
  }

  /** Forgets a finished run's process and logs (after the control plane has saved them). */
  forget(runId: string): void {
    this.runs.forget(runId);
  }
}
