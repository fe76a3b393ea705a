// Supervision of runs on external trainers (ray-slime, local-process, tinker, hf-local), run by the train worker
// (workers/train/external.ts). The run's state machine:
// - launches PENDING runs through their backend with a fresh write key bound to the experiment (keys.ts; Ray's
//   submission id is the run id, so a retried launch never starts a second job);
// - maps the job's state onto the run (PENDING/RUNNING/FINISHED/FAILED/KILLED) and marks it CRASHED when
//   the trainer stops heartbeating (lease/ack/report calls) or the job is lost (Ray forgot it, the process
//   that owned the local processes is gone, the Ray dashboard is unreachable for too long);
// - stops the job of a run the user stopped, revokes the run's trainer key when the run ends, and keeps the
//   logs of in-process trainers (local processes, the Tinker bridge, hf-local) where the API can read them (logs.ts).
// Settings: settings.ts; what a backend is given: launch.ts; the launch preview: preview.ts.
import { db } from "../platform/db/client";
import type { RunStatus } from "../platform/db/generated/client";
import { LIVE_RUN_STATUSES } from "../platform/db/runStatus";
import { env } from "../platform/env";
import { logger } from "../platform/log";
import { errorText } from "../platform/errors";
import { ExperimentConfigSchema } from "../config/experimentConfig";
import type { RunHandle, TrainerBackend, TrainerRunState } from "./backends/backend";
import { LOCAL_PROCESS_BACKEND_KIND } from "./backends/localProcess/backend";
import { RayJobsError } from "./backends/ray/client";
import { HF_LOCAL_BACKEND_KIND } from "./backends/hfLocal/backend";
import { TINKER_BACKEND_KIND } from "./backends/tinker/backend";
import { revokeTrainerKeys, issueTrainerKey } from "./keys";
import { episodeTrackFor } from "./episodeTrack";
import { buildRunLaunch, handleFor } from "./launch";
import { runLogPath, SAVED_LOG_LINES, saveLogs } from "./logs";
import { createBackends, type SupervisorSettings } from "./settings";
import { crashOwnedRuns, endRun, markExternalRunning, recordLaunch, setRunMessage, type EndStatus } from "./lifecycle";

/** Backends whose logs live in the supervising process (saved to DATA_DIR/runs/<id>/trainer.log for the API). */
const IN_PROCESS_KINDS = new Set([LOCAL_PROCESS_BACKEND_KIND, TINKER_BACKEND_KIND, HF_LOCAL_BACKEND_KIND]);

const log = logger("supervisor");

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

/** Retrying a failed stop of a killed run's job: 10 s, doubling to 10 min (for the 24 h a killed run is looked at). */
const STOP_RETRY_FIRST_MS = 10_000;
const STOP_RETRY_MAX_MS = 600_000;

const minutes = (ms: number) => (ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);

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
  /** Killed runs whose job could not be stopped yet: failures so far and when to try again. */
  private readonly stopRetry = new Map<string, { failures: number; nextAt: number }>();
  private result: TickResult = { launched: [], changed: [], stopped: [] };

  constructor(opts: SupervisorOptions) {
    this.s = opts.settings;
    this.backends = opts.backends ?? createBackends(opts.settings);
    this.dataDir = opts.dataDir ?? env().DATA_DIR;
    this.now = opts.now ?? (() => new Date());
    this.log = opts.log ?? ((line) => log.info(line));
    this.scope = opts.experimentIds?.length ? { experimentId: { in: opts.experimentIds } } : {};
  }

  async tick(): Promise<TickResult> {
    this.result = { launched: [], changed: [], stopped: [] };
    const kinds = [...this.backends.keys()];
    const live = await db().run.findMany({
      where: { ...this.scope, trainerBackend: { in: kinds }, status: { in: LIVE_RUN_STATUSES } },
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
      [...this.backends.values()].map((b) =>
        "stopAll" in b && typeof b.stopAll === "function" ? (b.stopAll as () => Promise<void>)() : undefined,
      ),
    );
    if (!ids.length) return;
    await crashOwnedRuns(ids, "the train worker shut down and ended its trainer processes", this.now());
    for (const id of ids) await revokeTrainerKeys(id);
  }

  private backend(run: SupervisedRun): TrainerBackend {
    return this.backends.get(run.trainerBackend)!;
  }

  private async launch(run: SupervisedRun): Promise<void> {
    const config = ExperimentConfigSchema.safeParse(run.config);
    if (!config.success)
      return this.finish(run, "FAILED", `the run's frozen config is invalid: ${config.error.issues[0]?.message}`);
    const backend = this.backend(run);
    try {
      const key = await issueTrainerKey(run);
      const launch = buildRunLaunch(
        {
          runId: run.id,
          runNumber: run.number,
          experimentSlug: run.experiment.slug,
          config: config.data,
          episodes: await episodeTrackFor(run.experimentId, config.data),
        },
        this.s,
        key,
      );
      const { externalJobId } = await backend.start(launch);
      if (IN_PROCESS_KINDS.has(run.trainerBackend)) this.owned.add(run.id);
      const jobId = externalJobId ?? run.id;
      const recorded = await recordLaunch(
        run.id,
        jobId,
        `launched on ${run.trainerBackend} as ${jobId}; waiting for it to start`,
      );
      this.result.launched.push(run.id);
      this.log(`run ${run.id}: launched on ${run.trainerBackend} as ${jobId}`);
      // Stopped while it was being launched: stop what was just started.
      if (!recorded) await this.stopJob({ ...run, externalJobId: jobId });
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
        return this.finish(
          run,
          "CRASHED",
          `lost contact with the ${run.trainerBackend} job for ${minutes(down)}: ${errorText(err)}`,
        );
      }
      return this.setMessage(run, `cannot read the job's status (${errorText(err)}); retrying`);
    }
    this.unreachableSince.delete(run.id);
    if (IN_PROCESS_KINDS.has(run.trainerBackend)) await this.saveRunLogs(run, backend, handle);

    if (state === "LOST")
      return this.finish(run, "CRASHED", `the trainer job was lost: ${message ?? "the backend no longer knows it"}`);
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
      const moved = await markExternalRunning(
        run.id,
        now,
        message ?? "running: waiting for the trainer's first report",
      );
      if (moved) this.result.changed.push({ runId: run.id, status: "RUNNING", message: message ?? "running" });
      return;
    }
    const last = run.heartbeatAt ?? run.startedAt ?? now;
    const silent = now.getTime() - last.getTime();
    const limit = (run.heartbeatAt ? this.s.TRAINER_HEARTBEAT_TIMEOUT_S : this.s.TRAINER_STARTUP_GRACE_S) * 1000;
    if (silent > limit) {
      await this.stopJob(run).catch((err) =>
        this.log(`run ${run.id}: stopping the silent job failed: ${errorText(err)}`),
      );
      const why = run.heartbeatAt
        ? `no heartbeat from the trainer for ${minutes(silent)} (last at ${run.heartbeatAt.toISOString()}); the job was stopped`
        : `the trainer never reported in the ${minutes(silent)} after it started; the job was stopped`;
      return this.finish(run, "CRASHED", why);
    }
  }

  private async stopKilled(kinds: string[]): Promise<void> {
    const since = new Date(this.now().getTime() - 24 * 3600_000);
    const killed = await db().run.findMany({
      where: {
        ...this.scope,
        trainerBackend: { in: kinds },
        status: "KILLED",
        externalJobId: { not: null },
        endedAt: { gte: since },
      },
      include: { experiment: { select: { slug: true } } },
    });
    for (const run of killed) {
      if (this.settled.has(run.id)) continue;
      const retry = this.stopRetry.get(run.id);
      if (retry && this.now().getTime() < retry.nextAt) continue;
      // The user stopped the run: its job may no longer report or lease, even while it cannot be reached.
      await revokeTrainerKeys(run.id);
      try {
        await this.stopJob(run);
        this.stopRetry.delete(run.id);
        this.settled.add(run.id);
        this.result.stopped.push(run.id);
        this.log(`run ${run.id}: job stopped`);
      } catch (err) {
        const failures = (retry?.failures ?? 0) + 1;
        const wait = Math.min(STOP_RETRY_MAX_MS, STOP_RETRY_FIRST_MS * 2 ** (failures - 1));
        this.stopRetry.set(run.id, { failures, nextAt: this.now().getTime() + wait });
        this.log(
          `run ${run.id}: stopping its job failed (attempt ${failures}), retrying in ${minutes(wait)}: ${errorText(err)}`,
        );
      }
    }
  }

  private async stopJob(run: SupervisedRun): Promise<void> {
    const backend = this.backend(run);
    const handle = handleFor(run, this.s);
    await backend.stop(handle);
    if (IN_PROCESS_KINDS.has(run.trainerBackend)) await this.saveRunLogs(run, backend, handle);
  }

  private async finish(run: SupervisedRun, status: EndStatus, message: string): Promise<void> {
    const text = message.slice(0, 2000);
    const ended = await endRun(run.id, status, text, this.now());
    await revokeTrainerKeys(run.id);
    this.settled.add(run.id);
    this.owned.delete(run.id);
    const backend = this.backend(run);
    if ("forget" in backend && typeof backend.forget === "function") (backend.forget as (id: string) => void)(run.id);
    if (ended) {
      this.result.changed.push({ runId: run.id, status, message: text });
      this.log(`run ${run.id}: ${status.toLowerCase()}: ${text}`);
    }
  }

  private async setMessage(run: SupervisedRun, message: string): Promise<void> {
    if (run.statusMessage === message) return;
    await setRunMessage(run.id, message);
  }

  private async saveRunLogs(run: SupervisedRun, backend: TrainerBackend, handle: RunHandle): Promise<void> {
    await saveLogs(runLogPath(run.id, this.dataDir), await backend.logs(handle, { tail: SAVED_LOG_LINES }));
  }
}
