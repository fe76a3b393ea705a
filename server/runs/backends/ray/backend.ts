// TrainerBackend on a Ray cluster. A launch is two Ray jobs: first the preflight
// (`python3 -m integrations.slime.preflight`, submission id `<run id>-preflight`), which parses the generated
// arguments with the installed slime and checks the checkpoint and the GPUs in seconds; then, once it has
// passed, the real slime job under the run id. The real job's submission (no secrets) rides in the preflight
// job's metadata, so a restarted control plane submits it from what Ray holds. Both jobs use the run's
// package (package.ts) as working_dir: the key and the argument list travel there, not in env_vars.
import { createHash } from "node:crypto";
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
import { describeSlimeRun, formatCommand, isRemoteUri, shellQuote, type SlimeCommand } from "../slime/args";
import { slimeCommandFor } from "../slime/trackLaunch";
import { mapRayStatus, RayJobsClient, RayJobsError, type RayJobsClientOptions, type RaySubmitRequest } from "./client";
import { ARGS_FILE, KEY_FILE, runPackage } from "./package";

export const RAY_SLIME_BACKEND_KIND = "ray-slime";

export type RayClientFactory = (address: string) => RayJobsClient;

export const preflightJobId = (runId: string) => `${runId}-preflight`;

/** Metadata key of the preflight job that holds the real job's submission. */
const MAIN_SUBMISSION = "openclaw_main_submission";

/** The lines the preflight prints for each problem (integrations/slime/preflight.py). */
const PROBLEM_LINE = /^PREFLIGHT PROBLEM: (.*)$/gm;

const SubmissionSchema = z.object({
  entrypoint: z.string(),
  submission_id: z.string(),
  runtime_env: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), z.string()),
});

/** runtime_env for the run: its package as working_dir, the public env vars, and conda or pip (never both). */
function runtimeEnv(launch: RunLaunch, cmd: SlimeCommand, packageUri: string): Record<string, unknown> {
  const ray = launch.config.ray;
  if (ray?.workingDir && isRemoteUri(ray.workingDir)) {
    throw new Error(
      `SLIME_DIR is a URI (${ray.workingDir}), but the job's working_dir carries the run's key package: install slime on the nodes and set SLIME_DIR to its path`,
    );
  }
  if (ray?.pythonEnv?.conda && ray.pythonEnv.pip?.length) {
    // Ray refuses a runtime_env with both (runtime_env validation: "cannot both be specified").
    throw new Error(
      "runtime_env: set either a conda env (SLIME_CONDA_ENV) or pip packages, not both: Ray refuses a runtime_env with both",
    );
  }
  const env: Record<string, unknown> = {
    working_dir: packageUri,
    // Relative to the working directory every worker of the job starts in.
    env_vars: { ...cmd.env, OPENCLAW_API_KEY_FILE: KEY_FILE },
  };
  if (ray?.pythonEnv?.conda) env.conda = ray.pythonEnv.conda;
  else if (ray?.pythonEnv?.pip?.length) env.pip = ray.pythonEnv.pip;
  return env;
}

/** The preflight's and the real job's submissions for a launch (exported so tests and the UI can show them). */
export function buildRaySubmissions(launch: RunLaunch, cmd: SlimeCommand = slimeCommandFor(launch)) {
  const pkg = runPackage(launch.config.apiKey, cmd.argv.slice(2));
  const env = runtimeEnv(launch, cmd, pkg.uri);
  const fingerprint = createHash("sha256")
    .update(JSON.stringify({ entrypoint: cmd.entrypoint, env: cmd.env }))
    .digest("hex")
    .slice(0, 16);
  const metadata = {
    openclaw_run_id: launch.runId,
    openclaw_experiment: launch.experimentSlug,
    openclaw_launch: fingerprint,
  };
  const main: RaySubmitRequest = {
    entrypoint: cmd.entrypoint,
    submission_id: launch.runId,
    runtime_env: env,
    metadata,
  };
  // The driver starts in the package directory; remember it before cd-ing into slime.
  const python = cmd.argv[0];
  const check = `${shellQuote(python)} -m integrations.slime.preflight --args-file "$OPENCLAW_PKG/${ARGS_FILE}"`;
  const preflight: RaySubmitRequest = {
    entrypoint: cmd.cwd
      ? `OPENCLAW_PKG="$PWD" && cd ${shellQuote(cmd.cwd)} && ${check}`
      : `OPENCLAW_PKG="$PWD" && ${check}`,
    submission_id: preflightJobId(launch.runId),
    runtime_env: env,
    metadata: { ...metadata, [MAIN_SUBMISSION]: JSON.stringify(main) },
  };
  return { pkg, preflight, main };
}

export class RaySlimeBackend implements TrainerBackend {
  readonly kind = RAY_SLIME_BACKEND_KIND;
  private readonly clientFor: RayClientFactory;

  constructor(opts: Omit<RayJobsClientOptions, "address"> & { clientFor?: RayClientFactory } = {}) {
    this.clientFor = opts.clientFor ?? ((address) => new RayJobsClient({ ...opts, address }));
  }

  preview(launch: RunLaunch): LaunchPlan {
    const cmd = slimeCommandFor(launch);
    return {
      command: formatCommand(cmd),
      notes: [
        `Submitted to the Ray Jobs API at ${launch.config.ray?.address} with submission_id = the run id, so a retried launch never starts twice.`,
        `Target: ${cmd.profile.label}; ${cmd.backend === "fsdp" ? "FSDP (LoRA)" : "Megatron"} backend; model ${cmd.model ? `${cmd.model.name} (architecture from ${cmd.model.source})` : "custom (architecture arguments from SLIME_EXTRA_ARGS)"}.`,
        ...(launch.config.episodes
          ? [
              `Track job (${launch.config.episodes.track}): the console runs the episodes through its proxy against this job's router; the job leases ${launch.config.episodes.groupsPerRollout} finished groups of ${launch.config.episodes.nSamplesPerPrompt} episodes per rollout.`,
            ]
          : []),
        `GPUs: ${cmd.plan.summary.text}`,
        ...describeSlimeRun(cmd, launch),
      ],
    };
  }

  /** Uploads the package and submits the preflight; the real job follows from status() once it passed. */
  async start(input: RunLaunch): Promise<{ externalJobId: string }> {
    const launch = RunLaunchSchema.parse(input);
    const client = this.client(launch);
    const { pkg, preflight } = buildRaySubmissions(launch);
    await client.uploadPackage(pkg.uri, pkg.zip);
    // A retry carries a fresh key, hence another package: the launch fingerprint decides whether it is the same launch.
    await client.submitJob(preflight, { volatileMetadata: [MAIN_SUBMISSION] });
    return { externalJobId: launch.runId };
  }

  async stop(run: RunHandle): Promise<void> {
    for (const id of [preflightJobId(run.runId), jobId(run)]) {
      try {
        await this.client(run).stopJob(id);
      } catch (err) {
        // Nothing to stop: the job never reached Ray or Ray has forgotten it.
        if (!(err instanceof RayJobsError && err.notFound)) throw err;
      }
    }
  }

  async status(run: RunHandle): Promise<TrainerStatus> {
    const client = this.client(run);
    const main = await found(client.getJob(jobId(run)));
    if (main) {
      const message = [main.message, main.error_type ? `(${main.error_type})` : null].filter(Boolean).join(" ");
      return { state: mapRayStatus(main.status), ...(message ? { message } : {}) };
    }
    const pre = await found(client.getJob(preflightJobId(run.runId)));
    if (!pre) {
      return {
        state: "LOST",
        message: `Ray has no job ${jobId(run)}: it was never submitted or the Ray cluster restarted and lost it`,
      };
    }
    if (pre.status === "PENDING" || pre.status === "RUNNING") {
      return {
        state: "PENDING",
        message: "preflight: checking the slime arguments, checkpoint and GPUs on the cluster",
      };
    }
    if (pre.status === "SUCCEEDED") {
      const submission = SubmissionSchema.parse(JSON.parse(pre.metadata?.[MAIN_SUBMISSION] ?? "null"));
      await client.submitJob(submission);
      return { state: "PENDING", message: "preflight passed; the slime job is submitted" };
    }
    const logs = await client.getJobLogs(preflightJobId(run.runId)).catch(() => "");
    const problems = [...logs.matchAll(PROBLEM_LINE)].map((m) => m[1].trim());
    const why = problems.length
      ? problems.join("; ")
      : [pre.message, pre.error_type ? `(${pre.error_type})` : null].filter(Boolean).join(" ");
    return {
      state: pre.status === "STOPPED" ? "KILLED" : "FAILED",
      message: `preflight failed (${problems.length || "no"} problem${problems.length === 1 ? "" : "s"} listed): ${why}`,
    };
  }

  /** The preflight's output, then the real job's. */
  async logs(run: RunHandle, opts: { tail?: number } = {}): Promise<string> {
    const client = this.client(run);
    const pre = await client
      .getJobLogs(preflightJobId(run.runId))
      .catch((err: unknown) => (err instanceof RayJobsError && err.notFound ? "" : Promise.reject(err)));
    const main = await client
      .getJobLogs(jobId(run))
      .catch((err: unknown) => (err instanceof RayJobsError && err.notFound ? "" : Promise.reject(err)));
    const text = [pre ? `[preflight]\n${pre.trimEnd()}` : "", main].filter(Boolean).join("\n");
    return tailLines(text, opts.tail);
  }

  private client(run: RunHandle): RayJobsClient {
    const address = run.config.ray?.address;
    if (!address)
      throw new Error(`run ${run.runId}: the config has no Ray address (ray.address, e.g. http://head:8265)`);
    return this.clientFor(address);
  }
}

/** The job, or null when Ray answers 404. */
async function found<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof RayJobsError && err.notFound) return null;
    throw err;
  }
}

function jobId(run: RunHandle): string {
  return run.externalJobId ?? run.runId;
}
