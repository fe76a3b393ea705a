// TrainerBackend for Tinker (Thinking Machines' remote LoRA training service): the control plane runs the
// Python bridge (integrations/tinker/bridge.py) as a child process in its own process group; the bridge
// leases batches from the batch API, trains them with the Tinker SDK and acknowledges each step. Tinker
// bills the user's own account, so it needs the user's own service key (TINKER_API_KEY): nothing starts
// without one.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { z } from "zod";
import {
  RunLaunchSchema,
  tailLines,
  type LaunchPlan,
  type RunHandle,
  type RunLaunch,
  type TrainerBackend,
  type TrainerStatus,
} from "../backend";
import { formatCommand } from "../slime/args";
import { inheritedEnv } from "../../../platform/env";
import { terminateGroup } from "../localProcess/processGroup";

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
  if (settings.serve) {
    env.TINKER_SERVE_PORT = String(settings.serve.port);
    if (settings.serve.host) env.TINKER_SERVE_HOST = settings.serve.host;
    if (settings.serve.url) env.TINKER_SERVE_URL = settings.serve.url;
  }
  return { argv: [settings.python, "-m", "integrations.tinker.bridge"], env, cwd: settings.cwd ?? process.cwd() };
}

interface BridgeRun {
  child: ChildProcess;
  pgid: number;
  lines: string[];
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  stopping?: Promise<boolean>;
}

export class TinkerBackend implements TrainerBackend {
  readonly kind = TINKER_BACKEND_KIND;
  private readonly runs = new Map<string, BridgeRun>();

  constructor(
    private readonly settings: TinkerSettings,
    private readonly maxLogLines = 10_000,
  ) {}

  preview(launch: RunLaunch): LaunchPlan {
    const notes = ["Trains on Tinker (remote LoRA service), billed to your own Tinker account."];
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
    const existing = this.runs.get(launch.runId);
    if (existing) return { externalJobId: `tinker:${existing.pgid}` };
    if (!this.settings.apiKey) {
      throw new Error(
        "Tinker trains on your own Tinker account: set TINKER_API_KEY (your Tinker service key) for the control plane",
      );
    }
    const { argv, env, cwd } = tinkerCommand(launch, this.settings);
    const inherited = inheritedEnv();
    for (const name of INHERITED) if (inherited[name] !== undefined) env[name] ??= inherited[name]!;
    env.PYTHONPATH = [cwd, inherited.PYTHONPATH].filter(Boolean).join(":");

    const child = spawn(argv[0]!, argv.slice(1), {
      cwd,
      env: env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const run = await new Promise<BridgeRun>((resolve, reject) => {
      child.once("error", (err) =>
        reject(new Error(`could not start the Tinker bridge (${argv.join(" ")}): ${err.message}`)),
      );
      child.once("spawn", () => resolve({ child, pgid: child.pid!, lines: [] }));
    });
    this.runs.set(launch.runId, run);
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on("line", (line) => this.append(run, line));
    }
    child.once("exit", (code, signal) => {
      run.exit = { code, signal };
      this.append(run, `[control-plane] bridge ${signal ? `was killed by ${signal}` : `exited with code ${code}`}`);
    });
    return { externalJobId: `tinker:${run.pgid}` };
  }

  async stop(handle: RunHandle): Promise<void> {
    await this.stopRun(handle.runId);
  }

  private async stopRun(runId: string): Promise<void> {
    const run = this.runs.get(runId);
    if (!run || run.exit) return;
    run.stopping ??= terminateGroup(run.pgid, this.settings.graceMs);
    await run.stopping;
    if (!run.exit) await new Promise((resolve) => run.child.once("exit", resolve));
  }

  async status(handle: RunHandle): Promise<TrainerStatus> {
    const run = this.runs.get(handle.runId);
    if (!run) return { state: "LOST", message: TINKER_NOT_TRACKED };
    if (!run.exit) return { state: "RUNNING" };
    if (run.stopping) return { state: "KILLED", message: "stopped on request" };
    if (run.exit.code === 0) return { state: "FINISHED", message: "the Tinker bridge exited cleanly" };
    const last = run.lines.filter((l) => !l.startsWith("[control-plane]")).at(-1);
    return {
      state: "FAILED",
      message: `the Tinker bridge ${run.exit.signal ? `was killed by ${run.exit.signal}` : `exited with code ${run.exit.code}`}${last ? `: ${last}` : ""}`,
    };
  }

  async logs(handle: RunHandle, opts: { tail?: number } = {}): Promise<string> {
    const run = this.runs.get(handle.runId);
    return run ? tailLines(run.lines.join("\n"), opts.tail) : "";
  }

  /** Ends every bridge this backend started (control-plane shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.runs.keys()].map((runId) => this.stopRun(runId)));
  }

  /** Forgets a finished run's process and logs (after the control plane has saved them). */
  forget(runId: string): void {
    if (this.runs.get(runId)?.exit) this.runs.delete(runId);
  }

  private append(run: BridgeRun, line: string): void {
    run.lines.push(line);
    if (run.lines.length > this.maxLogLines) run.lines.splice(0, run.lines.length - this.maxLogLines);
  }
}
