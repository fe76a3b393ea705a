// TrainerBackend on a Ray cluster: one Ray job per run running slime, submitted under the run id.
import { createHash } from "node:crypto";
import { RunLaunchSchema, tailLines, type RunHandle, type RunLaunch, type TrainerBackend, type TrainerStatus } from "../backend";
import { buildSlimeCommand, isRemoteUri, type SlimeCommand } from "../slime/args";
import { mapRayStatus, RayJobsClient, RayJobsError, type RayJobsClientOptions, type RaySubmitRequest } from "./client";

export const RAY_SLIME_BACKEND_KIND = "ray-slime";

/** Env vars left out of the launch fingerprint: a retry may carry a freshly issued key. */
const SECRET_ENV = /(key|token|secret|password)/i;

export type RayClientFactory = (address: string) => RayJobsClient;

/** The Ray submission for a launch (exported so the UI can show exactly what will be sent). */
export function buildRaySubmission(launch: RunLaunch, cmd: SlimeCommand = buildSlimeCommand(launch)): RaySubmitRequest {
  const ray = launch.config.ray;
  const runtimeEnv: Record<string, unknown> = { env_vars: cmd.env };
  if (ray?.workingDir && isRemoteUri(ray.workingDir)) runtimeEnv.working_dir = ray.workingDir;
  if (ray?.pythonEnv?.conda) runtimeEnv.conda = ray.pythonEnv.conda;
  if (ray?.pythonEnv?.pip?.length) runtimeEnv.pip = ray.pythonEnv.pip;

  const publicEnv = Object.fromEntries(Object.entries(cmd.env).filter(([k]) => !SECRET_ENV.test(k)));
  const fingerprint = createHash("sha256")
    .update(JSON.stringify({ entrypoint: cmd.entrypoint, env: publicEnv, runtimeEnv: { ...runtimeEnv, env_vars: undefined } }))
    .digest("hex")
    .slice(0, 16);
  return {
    entrypoint: cmd.entrypoint,
    submission_id: launch.runId,
    runtime_env: runtimeEnv,
    metadata: {
      openclaw_run_id: launch.runId,
      openclaw_experiment: launch.experimentSlug,
      openclaw_launch: fingerprint,
    },
  };
}

export class RaySlimeBackend implements TrainerBackend {
  readonly kind = RAY_SLIME_BACKEND_KIND;
  private readonly clientFor: RayClientFactory;

  constructor(opts: Omit<RayJobsClientOptions, "address"> & { clientFor?: RayClientFactory } = {}) {
    this.clientFor = opts.clientFor ?? ((address) => new RayJobsClient({ ...opts, address }));
  }

  async start(input: RunLaunch): Promise<{ externalJobId: string }> {
    const launch = RunLaunchSchema.parse(input);
    const client = this.client(launch);
    const { submissionId } = await client.submitJob(buildRaySubmission(launch));
    return { externalJobId: submissionId };
  }

  async stop(run: RunHandle): Promise<void> {
    try {
      await this.client(run).stopJob(jobId(run));
    } catch (err) {
      // Nothing to stop: the job never reached Ray or Ray has forgotten it.
      if (err instanceof RayJobsError && err.notFound) return;
      throw err;
    }
  }

  async status(run: RunHandle): Promise<TrainerStatus> {
    try {
      const job = await this.client(run).getJob(jobId(run));
      const message = [job.message, job.error_type ? `(${job.error_type})` : null].filter(Boolean).join(" ");
      return { state: mapRayStatus(job.status), ...(message ? { message } : {}) };
    } catch (err) {
      if (err instanceof RayJobsError && err.notFound) {
        return {
          state: "FAILED",
          message: `Ray has no job ${jobId(run)}: it was never submitted or the Ray cluster restarted and lost it`,
        };
      }
      throw err;
    }
  }

  async logs(run: RunHandle, opts: { tail?: number } = {}): Promise<string> {
    return tailLines(await this.client(run).getJobLogs(jobId(run)), opts.tail);
  }

  private client(run: RunHandle): RayJobsClient {
    const address = run.config.ray?.address;
    if (!address) throw new Error(`run ${run.runId}: the config has no Ray address (ray.address, e.g. http://head:8265)`);
    return this.clientFor(address);
  }
}

function jobId(run: RunHandle): string {
  return run.externalJobId ?? run.runId;
}
