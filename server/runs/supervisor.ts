// Supervision of runs on external trainers (ray-slime, local-process, tinker), run by the train worker
// (workers/train/external.ts):
// - launches PENDING runs through their backend with a fresh write key bound to the experiment (Ray's
//   submission id is the run id, so a retried launch never starts a second job);
// - maps the job's state onto the run (PENDING/RUNNING/FINISHED/FAILED/KILLED) and marks it CRASHED when
//   the trainer stops heartbeating (lease/ack/report calls) or the job is lost (Ray forgot it, the process
//   that owned the local processes is gone, the Ray dashboard is unreachable for too long);
// - stops the job of a run the user stopped, revokes the run's trainer key when the run ends, and keeps the
//   logs of in-process trainers (local processes, the Tinker bridge) where the API can read them.
// Also: the launch preview (the exact command, before launch) and the logs tail the API serves.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { createApiKey } from "../apiKeys/service";
import { forgetApiKey } from "../access/apiKeys";
import { assertCan, type Principal } from "../access/principal";
import { db } from "../platform/db/client";
import type { RunStatus } from "../platform/db/generated/client";
import { env } from "../platform/env";

import { ExperimentConfigSchema, type ExperimentConfig } from "../experiments/config";
import { assertGpuPlan, planRoleGroups } from "../gpu/plan";
import {
  LocalProcessConfigSchema,
  RunLaunchConfigSchema,
  RunLaunchSchema,
  tailLines,
  type RunHandle,
  type RunLaunch,
  type TrainerBackend,
  type TrainerRunState,
} from "./backends/backend";
import { LOCAL_PROCESS_BACKEND_KIND, LocalProcessBackend } from "./backends/localProcess/backend";
import { RAY_SLIME_BACKEND_KIND, RaySlimeBackend } from "./backends/ray/backend";
import { RayJobsError } from "./backends/ray/client";
import { buildSlimeCommand, formatCommand, shellQuote } from "./backends/slime/args";
import { SLIME_PROFILE_IDS } from "./backends/slime/profiles";
import { TINKER_BACKEND_KIND, TinkerBackend, TinkerSettingsSchema, tinkerCommand } from "./backends/tinker/backend";
import { loadExperimentFor, loadRunFor } from "../access/scope";

const LIVE: RunStatus[] = ["PENDING", "RUNNING", "PAUSED"];

/** Backends whose logs live in the supervising process (saved to DATA_DIR/runs/<id>/trainer.log for the API). */
const IN_PROCESS_KINDS = new Set([LOCAL_PROCESS_BACKEND_KIND, TINKER_BACKEND_KIND]);

// ---------------------------------------------------------------------------------------------------------
// Operator settings (environment of the train worker and the web process)

const optionalText = z.string().min(1).optional();
const jsonText = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((s, ctx) => {
      try {
        return JSON.parse(s) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "must be JSON" });
        return z.NEVER;
      }
    })
    .pipe(schema);

export const SupervisorSettingsSchema = z.object({
  /** How jobs reach the control plane's API (default PUBLIC_URL, else http://127.0.0.1:WEB_PORT). */
  CONTROL_PLANE_URL: z.string().url().optional(),
  PUBLIC_URL: z.string().url().optional(),
  WEB_PORT: z.coerce.number().int().positive().default(3000),
  /** slime checkout on the cluster (a path is cd-ed into; a URI becomes Ray's working_dir). */
  SLIME_DIR: optionalText,
  SLIME_PYTHON: optionalText,
  /** Colon-separated PYTHONPATH for the job: Megatron-LM, slime, and the folder holding `integrations`. */
  SLIME_PYTHONPATH: z.string().transform((s) => s.split(":").filter(Boolean)).optional(),
  SLIME_CONDA_ENV: optionalText,
  /** Target slime: openclaw-rl-fork (default) or upstream-slime. */
  SLIME_PROFILE: z.enum(SLIME_PROFILE_IDS).optional(),
  /** Model preset (qwen3-4b, qwen3-4b-2507, qwen3-8b, qwen3.5-4b) or "custom"; default: from the checkpoint's name. */
  SLIME_MODEL: optionalText,
  /** Policy checkpoint on the cluster (default: the experiment's policy model name). */
  SLIME_HF_CHECKPOINT: optionalText,
  SLIME_REF_LOAD: optionalText,
  /** Checkpoints go to <SLIME_SAVE_DIR>/<experiment slug>/run-<n>. */
  SLIME_SAVE_DIR: optionalText,
  SLIME_SAVE_INTERVAL: z.coerce.number().int().min(1).optional(),
  SLIME_PRM_MODEL_PATH: optionalText,
  SLIME_MAX_TOKENS_PER_GPU: z.coerce.number().int().min(1).optional(),
  /** JSON array of extra slime flags, appended last. */
  SLIME_EXTRA_ARGS: jsonText(z.array(z.string())).optional(),
  /** JSON {"actor": {"command": [...]}, "rollout": {...}, "prm": {...}} for the local-process backend. */
  LOCAL_PROCESS_ROLES: jsonText(LocalProcessConfigSchema.shape.roles).optional(),
  LOCAL_PROCESS_ENV: jsonText(z.record(z.string(), z.string())).optional(),
  /** The user's own Tinker service key. */
  TINKER_API_KEY: optionalText,
  TINKER_BASE_MODEL: optionalText,
  TINKER_LOSS: z.enum(["importance_sampling", "ppo", "cispo"]).optional(),
  TINKER_PYTHON: optionalText,
  /** A running trainer that has reported before is CRASHED after this long without a heartbeat. */
  TRAINER_HEARTBEAT_TIMEOUT_S: z.coerce.number().positive().default(600),
  /** Time from RUNNING to the first heartbeat (slime loads models and starts engines first). */
  TRAINER_STARTUP_GRACE_S: z.coerce.number().positive().default(1800),
  /** A job whose status cannot be read for this long is CRASHED. */
  TRAINER_JOB_LOST_S: z.coerce.number().min(0).default(300),
  /** A launch that keeps failing on transient errors (Ray unreachable) fails after this long. */
  TRAINER_LAUNCH_TIMEOUT_S: z.coerce.number().min(0).default(600),
});
export type SupervisorSettings = z.output<typeof SupervisorSettingsSchema>;

/** Settings from an environment; empty variables count as unset. Throws a readable error. */
export function supervisorSettings(source: Record<string, string | undefined> = process.env): SupervisorSettings {
  const vars = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = SupervisorSettingsSchema.safeParse(vars);
  if (!parsed.success) {
    throw new Error(`Invalid trainer settings: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  }
  return parsed.data;
}

export function controlPlaneUrl(s: SupervisorSettings): string {
  return s.CONTROL_PLANE_URL ?? s.PUBLIC_URL ?? `http://127.0.0.1:${s.WEB_PORT}`;
}

export function createBackends(s: SupervisorSettings): Map<string, TrainerBackend> {
  return new Map<string, TrainerBackend>([
    [RAY_SLIME_BACKEND_KIND, new RaySlimeBackend()],
    [LOCAL_PROCESS_BACKEND_KIND, new LocalProcessBackend()],
    [TINKER_BACKEND_KIND, new TinkerBackend(tinkerSettings(s))],
  ]);
}

function tinkerSettings(s: SupervisorSettings) {
  return TinkerSettingsSchema.parse({ apiKey: s.TINKER_API_KEY, baseModel: s.TINKER_BASE_MODEL, loss: s.TINKER_LOSS, python: s.TINKER_PYTHON });
}

// ---------------------------------------------------------------------------------------------------------
// Launch config

export interface LaunchTarget {
  runId: string;
  runNumber: number;
  experimentSlug: string;
  config: ExperimentConfig;
}

/** The backend launch of a run: the experiment's frozen config plus the operator's cluster settings. */
export function buildRunLaunch(t: LaunchTarget, s: SupervisorSettings, apiKey: string): RunLaunch {
  const c = t.config;
  const h = c.hyper;
  const model = c.policy.kind === "embedded" ? c.policy.checkpoint : c.policy.model;
  return RunLaunchSchema.parse({
    runId: t.runId,
    experimentSlug: t.experimentSlug,
    config: {
      method: c.method,
      hyperparameters: { lr: h.lr, epsClip: h.epsClip, epsClipHigh: h.epsClipHigh, klCoef: h.klCoef, entropyCoef: h.entropyCoef, batchSize: h.batchSize, wOpd: h.wOpd, wRl: h.wRl, maxStaleness: h.maxStaleness },
      lora: c.lora,
      gpu: c.trainer.gpu,
      ray: c.trainer.rayAddress
        ? {
            address: c.trainer.rayAddress,
            workingDir: s.SLIME_DIR,
            pythonEnv: { python: s.SLIME_PYTHON, pythonPath: s.SLIME_PYTHONPATH, conda: s.SLIME_CONDA_ENV },
          }
        : undefined,
      slime: {
        profile: s.SLIME_PROFILE,
        model: s.SLIME_MODEL,
        hfCheckpoint: s.SLIME_HF_CHECKPOINT ?? model,
        refLoad: s.SLIME_REF_LOAD,
        saveDir: s.SLIME_SAVE_DIR ? path.posix.join(s.SLIME_SAVE_DIR, t.experimentSlug, `run-${t.runNumber}`) : undefined,
        saveInterval: s.SLIME_SAVE_INTERVAL,
        prmModelPath: s.SLIME_PRM_MODEL_PATH,
        maxTokensPerGpu: s.SLIME_MAX_TOKENS_PER_GPU,
        customLossFunctionPath: c.customLossPath,
        extraArgs: s.SLIME_EXTRA_ARGS ?? [],
      },
      localProcess: s.LOCAL_PROCESS_ROLES ? { roles: s.LOCAL_PROCESS_ROLES, env: s.LOCAL_PROCESS_ENV ?? {} } : undefined,
      controlPlaneUrl: controlPlaneUrl(s),
      apiKey,
    },
  });
}

/** What status/stop/logs need: the run id, the job id and the Ray address (no key, no slime settings). */
function handleFor(run: { id: string; externalJobId: string | null; config: unknown }, s: SupervisorSettings): RunHandle {
  const parsed = ExperimentConfigSchema.safeParse(run.config);
  const trainer = parsed.success ? parsed.data.trainer : null;
  return {
    runId: run.id,
    externalJobId: run.externalJobId,
    config: RunLaunchConfigSchema.parse({
      controlPlaneUrl: controlPlaneUrl(s),
      apiKey: "(not needed)",
      ...(trainer ? { gpu: trainer.gpu } : {}),
      ...(trainer?.rayAddress ? { ray: { address: trainer.rayAddress } } : {}),
    }),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Trainer keys: one write key per launch, bound to the experiment, revoked when the run ends

const trainerKeyName = (runId: string) => `trainer:run:${runId}`;

async function issueTrainerKey(run: { id: string; experimentId: string }): Promise<string> {
  return (await createApiKey(null, { name: trainerKeyName(run.id), scopes: ["write"], experimentId: run.experimentId })).key;
}

export async function revokeTrainerKeys(runId: string): Promise<number> {
  const keys = await db().apiKey.findMany({ where: { name: trainerKeyName(runId), revokedAt: null }, select: { id: true, prefix: true } });
  if (!keys.length) return 0;
  await db().apiKey.updateMany({ where: { id: { in: keys.map((k) => k.id) } }, data: { revokedAt: new Date() } });
  for (const k of keys) forgetApiKey(k.prefix);
  return keys.length;
}

// ---------------------------------------------------------------------------------------------------------
// Logs of in-process trainers

export function runLogPath(runId: string, dataDir = env().DATA_DIR): string {
  return path.join(dataDir, "runs", runId, "trainer.log");
}

const SAVED_LOG_LINES = 5000;

async function saveLogs(file: string, text: string): Promise<void> {
  if (!text) return;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

// ---------------------------------------------------------------------------------------------------------
// The supervisor

type SupervisedRun = {
  id: string;
  number: number;
  experimentId: string;
  status: RunStatus;
  trainerBackend: string;
  externalJobId: string | null;
  statusMessage: string | null;
  config: unknown;
  createdAt: Date;
  startedAt: Date | null;
  heartbeatAt: Date | null;
  experiment: { slug: string };
};

export interface SupervisorOptions {
  settings: SupervisorSettings;
  backends?: Map<string, TrainerBackend>;
  /** Where in-process trainer logs are saved (default DATA_DIR). */
  dataDir?: string;
  /** Only these experiments' runs (shards runs over several train workers, like TRAINER_EXPERIMENTS). */
  experimentIds?: string[];
  now?: () => Date;
  log?: (line: string) => void;
}

export interface TickResult {
  launched: string[];
  changed: { runId: string; status: RunStatus; message: string }[];
  stopped: string[];
}

const minutes = (ms: number) => (ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Worth retrying: Ray (or the network) was not able to answer, as opposed to refusing the launch. */
function transient(err: unknown): boolean {
  return err instanceof RayJobsError && (err.kind === "network" || (err.kind === "http" && (err.status ?? 0) >= 500));
}

export class RunSupervisor {
  readonly backends: Map<string, TrainerBackend>;
  private readonly s: SupervisorSettings;
  private readonly dataDir: string;
  private readonly now: () => Date;
  private readonly log: (line: string) => void;
  private readonly scope: { experimentId?: { in: string[] } };
  private readonly unreachableSince = new Map<string, number>();
  /** Stopped runs whose job has been stopped (or found gone): not looked at again. */
  private readonly settled = new Set<string>();
  /** Runs whose in-process trainer this supervisor started. */
  private readonly owned = new Set<string>();
  private result: TickResult = { launched: [], changed: [], stopped: [] };

  constructor(opts: SupervisorOptions) {
    this.s = opts.settings;
    this.backends = opts.backends ?? createBackends(opts.settings);
    this.dataDir = opts.dataDir ?? env().DATA_DIR;
    this.now = opts.now ?? (() => new Date());
    this.log = opts.log ?? ((line) => console.log(`[supervisor] ${line}`));
    this.scope = opts.experimentIds?.length ? { experimentId: { in: opts.experimentIds } } : {};
  }

  async tick(): Promise<TickResult> {
    this.result = { launched: [], changed: [], stopped: [] };
    const kinds = [...this.backends.keys()];
    const live = await db().run.findMany({
      where: { ...this.scope, trainerBackend: { in: kinds }, status: { in: LIVE } },
      include: { experiment: { select: { slug: true } } },
      orderBy: { createdAt: "asc" },
    });
    for (const run of live) {
      try {
        if (run.externalJobId) await this.poll(run);
        else await this.launch(run);
      } catch (err) {
        this.log(`run ${run.id}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      }
    }
    await this.stopKilled(kinds);
    return this.result;
  }

  /** Ends the in-process trainers this supervisor started (worker shutdown) and records why. */
  async shutdown(): Promise<void> {
    const ids = [...this.owned];
    await Promise.all(
      [...this.backends.values()].map((b) => ("stopAll" in b && typeof b.stopAll === "function" ? (b.stopAll as () => Promise<void>)() : undefined)),
    );
    if (!ids.length) return;
    await db().run.updateMany({
      where: { id: { in: ids }, status: { in: LIVE } },
      data: { status: "CRASHED", statusMessage: "the train worker shut down and ended its trainer processes", endedAt: this.now() },
    });
    for (const id of ids) await revokeTrainerKeys(id);
  }

  private backend(run: SupervisedRun): TrainerBackend {
    return this.backends.get(run.trainerBackend)!;
  }

  private async launch(run: SupervisedRun): Promise<void> {
    const config = ExperimentConfigSchema.safeParse(run.config);
    if (!config.success) return this.finish(run, "FAILED", `the run's frozen config is invalid: ${config.error.issues[0]?.message}`);
    const backend = this.backend(run);
    try {
      const key = await issueTrainerKey(run);
      const launch = buildRunLaunch({ runId: run.id, runNumber: run.number, experimentSlug: run.experiment.slug, config: config.data }, this.s, key);
      const { externalJobId } = await backend.start(launch);
      if (IN_PROCESS_KINDS.has(run.trainerBackend)) this.owned.add(run.id);
      const jobId = externalJobId ?? run.id;
      const updated = await db().run.updateMany({
        where: { id: run.id, status: "PENDING" },
        data: { externalJobId: jobId, statusMessage: `launched on ${run.trainerBackend} as ${jobId}; waiting for it to start` },
      });
      this.result.launched.push(run.id);
      this.log(`run ${run.id}: launched on ${run.trainerBackend} as ${jobId}`);
      // Stopped while it was being launched: stop what was just started.
      if (updated.count === 0) await this.stopJob({ ...run, externalJobId: jobId });
    } catch (err) {
      await revokeTrainerKeys(run.id);
      const age = this.now().getTime() - run.createdAt.getTime();
      if (transient(err) && age < this.s.TRAINER_LAUNCH_TIMEOUT_S * 1000) {
        await this.setMessage(run, `could not launch yet (${errorText(err)}); retrying`);
      } else {
        await this.finish(run, "FAILED", `could not launch: ${errorText(err)}`);
      }
    }
  }

  private async poll(run: SupervisedRun): Promise<void> {
    const backend = this.backend(run);
    const handle = handleFor(run, this.s);
    let state: TrainerRunState;
    let message: string | undefined;
    try {
      ({ state, message } = await backend.status(handle));
    } catch (err) {
      const since = this.unreachableSince.get(run.id) ?? this.now().getTime();
      this.unreachableSince.set(run.id, since);
      const down = this.now().getTime() - since;
      if (down >= this.s.TRAINER_JOB_LOST_S * 1000) {
        await this.stopJob(run).catch(() => {});
        return this.finish(run, "CRASHED", `lost contact with the ${run.trainerBackend} job for ${minutes(down)}: ${errorText(err)}`);
      }
      return this.setMessage(run, `cannot read the job's status (${errorText(err)}); retrying`);
    }
    this.unreachableSince.delete(run.id);
    if (IN_PROCESS_KINDS.has(run.trainerBackend)) await this.saveRunLogs(run, backend, handle);

    if (state === "LOST") return this.finish(run, "CRASHED", `the trainer job was lost: ${message ?? "the backend no longer knows it"}`);
    if (state === "FINISHED" || state === "FAILED" || state === "KILLED") {
      return this.finish(run, state, message ?? `the job ended (${state.toLowerCase()})`);
    }
    if (state === "PENDING") {
      if (message) await this.setMessage(run, message);
      return;
    }
    // RUNNING
    const now = this.now();
    if (run.status === "PENDING") {
      const moved = await db().run.updateMany({
        where: { id: run.id, status: "PENDING" },
        data: { status: "RUNNING", startedAt: now, statusMessage: message ?? "running: waiting for the trainer's first report" },
      });
      if (moved.count) this.result.changed.push({ runId: run.id, status: "RUNNING", message: message ?? "running" });
      return;
    }
    const last = run.heartbeatAt ?? run.startedAt ?? now;
    const silent = now.getTime() - last.getTime();
    const limit = (run.heartbeatAt ? this.s.TRAINER_HEARTBEAT_TIMEOUT_S : this.s.TRAINER_STARTUP_GRACE_S) * 1000;
    if (silent > limit) {
      await this.stopJob(run).catch((err) => this.log(`run ${run.id}: stopping the silent job failed: ${errorText(err)}`));
      const why = run.heartbeatAt
        ? `no heartbeat from the trainer for ${minutes(silent)} (last at ${run.heartbeatAt.toISOString()}); the job was stopped`
        : `the trainer never reported in the ${minutes(silent)} after it started; the job was stopped`;
      return this.finish(run, "CRASHED", why);
    }
  }

  private async stopKilled(kinds: string[]): Promise<void> {
    const since = new Date(this.now().getTime() - 24 * 3600_000);
    const killed = await db().run.findMany({
      where: { ...this.scope, trainerBackend: { in: kinds }, status: "KILLED", externalJobId: { not: null }, endedAt: { gte: since } },
      include: { experiment: { select: { slug: true } } },
    });
    for (const run of killed) {
      if (this.settled.has(run.id)) continue;
      try {
        await this.stopJob(run);
        await revokeTrainerKeys(run.id);
        this.settled.add(run.id);
        this.result.stopped.push(run.id);
        this.log(`run ${run.id}: job stopped`);
      } catch (err) {
        this.log(`run ${run.id}: stopping its job failed, retrying: ${errorText(err)}`);
      }
    }
  }

  private async stopJob(run: SupervisedRun): Promise<void> {
    const backend = this.backend(run);
    const handle = handleFor(run, this.s);
    await backend.stop(handle);
    if (IN_PROCESS_KINDS.has(run.trainerBackend)) await this.saveRunLogs(run, backend, handle);
  }

  private async finish(run: SupervisedRun, status: RunStatus, message: string): Promise<void> {
    const text = message.slice(0, 2000);
    const res = await db().run.updateMany({ where: { id: run.id, status: { in: LIVE } }, data: { status, statusMessage: text, endedAt: this.now() } });
    await revokeTrainerKeys(run.id);
    this.settled.add(run.id);
    this.owned.delete(run.id);
    const backend = this.backend(run);
    if ("forget" in backend && typeof backend.forget === "function") (backend.forget as (id: string) => void)(run.id);
    if (res.count) {
      this.result.changed.push({ runId: run.id, status, message: text });
      this.log(`run ${run.id}: ${status.toLowerCase()}: ${text}`);
    }
  }

  private async setMessage(run: SupervisedRun, message: string): Promise<void> {
    if (run.statusMessage === message) return;
    await db().run.updateMany({ where: { id: run.id, status: { in: LIVE } }, data: { statusMessage: message.slice(0, 2000) } });
  }

  private async saveRunLogs(run: SupervisedRun, backend: TrainerBackend, handle: RunHandle): Promise<void> {
    await saveLogs(runLogPath(run.id, this.dataDir), await backend.logs(handle, { tail: SAVED_LOG_LINES }));
  }
}

// ---------------------------------------------------------------------------------------------------------
// API: logs tail and launch preview

export interface RunLogs {
  runId: string;
  trainerBackend: string;
  /** ray: read from the Ray Jobs API now; file: saved by the train worker; none: nothing to show. */
  source: "ray" | "file" | "none";
  text: string;
  note: string | null;
}

export async function runLogs(p: Principal, runId: string, tail: number, settings: SupervisorSettings = supervisorSettings()): Promise<RunLogs> {
  assertCan(p, "read");
  const run = await loadRunFor(p, runId);
  const base = { runId, trainerBackend: run.trainerBackend };
  if (run.trainerBackend === "embedded") {
    return { ...base, source: "none", text: "", note: "Embedded runs train inside the train worker: see its output and the run's metrics." };
  }
  let note: string | null = null;
  if (run.trainerBackend === RAY_SLIME_BACKEND_KIND && run.externalJobId) {
    try {
      return { ...base, source: "ray", text: await new RaySlimeBackend().logs(handleFor(run, settings), { tail }), note: null };
    } catch (err) {
      note = `Ray's logs are not available now: ${errorText(err)}`;
    }
  }
  try {
    return { ...base, source: "file", text: tailLines(await readFile(runLogPath(runId), "utf8"), tail), note };
  } catch {
    return { ...base, source: "none", text: "", note: note ?? (run.externalJobId ? "No logs saved yet." : "The run has not been launched yet.") };
  }
}

export interface LaunchPreview {
  experimentId: string;
  trainerBackend: string;
  /** The exact command, secrets hidden; null when it cannot be built (see error). */
  command: string | null;
  error: string | null;
  notes: string[];
  /** Tinker: the run trains on the user's own Tinker account. */
  needsUserKey: boolean;
  userKeyConfigured: boolean;
}

const PLACEHOLDER_RUN_ID = "<run id>";
const PLACEHOLDER_KEY = "<issued at launch>";

export async function launchPreview(p: Principal, experimentId: string, settings: SupervisorSettings = supervisorSettings()): Promise<LaunchPreview> {
  assertCan(p, "read");
  const e = await loadExperimentFor(p, experimentId);
  const config = ExperimentConfigSchema.parse(e.config);
  const kind = config.trainer.backend as string;
  const out: LaunchPreview = { experimentId: e.id, trainerBackend: kind, command: null, error: null, notes: [], needsUserKey: kind === TINKER_BACKEND_KIND, userKeyConfigured: !!settings.TINKER_API_KEY };
  if (kind === "embedded") {
    out.notes.push("Trains on CPU inside the control plane's train worker: nothing is launched.");
    return out;
  }
  try {
    const last = await db().run.findFirst({ where: { experimentId: e.id }, orderBy: { number: "desc" }, select: { number: true } });
    const launch = buildRunLaunch({ runId: PLACEHOLDER_RUN_ID, runNumber: (last?.number ?? 0) + 1, experimentSlug: e.slug, config }, settings, PLACEHOLDER_KEY);
    out.notes.push(`The trainer reaches the control plane at ${launch.config.controlPlaneUrl} with a write key bound to this experiment, issued at launch and revoked when the run ends.`);
    if (kind === RAY_SLIME_BACKEND_KIND) {
      const cmd = buildSlimeCommand(launch);
      out.command = formatCommand(cmd);
      out.notes.push(`Submitted to the Ray Jobs API at ${launch.config.ray?.address} with submission_id = the run id, so a retried launch never starts twice.`);
      out.notes.push(`Target: ${cmd.profile.label}; ${cmd.backend === "fsdp" ? "FSDP (LoRA)" : "Megatron"} backend; model ${cmd.model ? `${cmd.model.name} (architecture from ${cmd.model.source})` : "custom (architecture arguments from SLIME_EXTRA_ARGS)"}.`);
      out.notes.push(`GPUs: ${cmd.plan.summary.text}`);
    } else if (kind === LOCAL_PROCESS_BACKEND_KIND) {
      const local = launch.config.localProcess;
      if (!local) throw new Error("set LOCAL_PROCESS_ROLES (JSON role commands) for the train worker");
      const groups = planRoleGroups(assertGpuPlan(launch.config.gpu));
      out.command = groups
        .map((g) => {
          const spec = local.roles[g.role];
          const argv = spec ? spec.command.map(shellQuote).join(" ") : "(no command for this role)";
          return `# ${g.label}\nCUDA_VISIBLE_DEVICES=${g.devices.map((d) => d.gpu).join(",")} ${argv}`;
        })
        .join("\n");
      out.notes.push("Each role runs in its own process group on this machine; stopping the run ends exactly those groups.");
    } else if (kind === TINKER_BACKEND_KIND) {
      out.command = formatCommand(tinkerCommand(launch, tinkerSettings(settings)));
      out.notes.push("Trains on Tinker (remote LoRA service), billed to your own Tinker account.");
      if (!settings.TINKER_API_KEY) out.notes.push("TINKER_API_KEY is not set for the control plane: a launch would fail.");
    } else {
      throw new Error(`no trainer backend '${kind}' in this control plane`);
    }
  } catch (err) {
    out.error = errorText(err);
  }
  return out;
}
