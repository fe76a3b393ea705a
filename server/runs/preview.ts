// The launch preview the console shows before a run starts: the exact command (secrets hidden) and notes on
// where it runs, as the experiment's trainer backend describes its launch (TrainerBackend.preview).
import { type Principal } from "../access/principal";
import { loadExperimentFor } from "../access/scope";
import { ExperimentConfigSchema } from "../config/experimentConfig";
import { db } from "../platform/db/client";
import { badRequest, errorText } from "../platform/errors";
import { formatCommand } from "./backends/slime/args";
import { buildTrackJob, TrackJobError, type TrackJob, type TrackJobInput } from "./backends/slime/tracks";
import { TINKER_BACKEND_KIND } from "./backends/tinker/backend";
import { planGpuSplit } from "../gpu/plan";
import { episodeTrackFor } from "./episodeTrack";
import { buildRunLaunch } from "./launch";
import { createBackends, supervisorSettings, type SupervisorSettings } from "./settings";

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

export async function launchPreview(
  p: Principal,
  experimentId: string,
  settings: SupervisorSettings = supervisorSettings(),
): Promise<LaunchPreview> {
  const e = await loadExperimentFor(p, experimentId);
  const config = ExperimentConfigSchema.parse(e.config);
  const kind = config.trainer.backend as string;
  const out: LaunchPreview = {
    experimentId: e.id,
    trainerBackend: kind,
    command: null,
    error: null,
    notes: [],
    needsUserKey: kind === TINKER_BACKEND_KIND,
    userKeyConfigured: !!settings.TINKER_API_KEY,
  };
  if (kind === "embedded") {
    out.notes.push("Trains on CPU inside the control plane's train worker: nothing is launched.");
    return out;
  }
  try {
    const last = await db().run.findFirst({
      where: { experimentId: e.id },
      orderBy: { number: "desc" },
      select: { number: true },
    });
    const launch = buildRunLaunch(
      {
        runId: PLACEHOLDER_RUN_ID,
        runNumber: (last?.number ?? 0) + 1,
        experimentSlug: e.slug,
        config,
        episodes: await episodeTrackFor(e.id, config),
      },
      settings,
      PLACEHOLDER_KEY,
    );
    out.notes.push(
      `The trainer reaches the control plane at ${launch.config.controlPlaneUrl} with a write key bound to this experiment, issued at launch and revoked when the run ends.`,
    );
    const backend = createBackends(settings).get(kind);
    if (!backend) throw new Error(`no trainer backend '${kind}' in this control plane`);
    const plan = backend.preview(launch);
    out.command = plan.command;
    out.notes.push(...plan.notes);
  } catch (err) {
    out.error = errorText(err);
  }
  return out;
}

/**
 * The slime job of an agentic track (ReTool, terminal-rl) as the fork's scripts define it, for the operator to run
 * on their Ray cluster: the command (env and argv, shell-quoted; nothing is run) and the GPUs per role. A split
 * that cannot work is a 400 naming why.
 */
export function trackJobPreview(input: TrackJobInput) {
  let job: TrackJob;
  try {
    job = buildTrackJob(input);
  } catch (e) {
    if (!(e instanceof TrackJobError)) throw e;
    throw badRequest(`This track job cannot run: ${e.message}`, [{ path: "gpu", message: e.message }]);
  }
  // slime's placement (actor → rollout → PRM, contiguous): the GPU grid draws the same plan from gpuSplit.
  const plan = planGpuSplit(job.gpuSplit);
  if (!plan.ok) {
    const why = plan.errors.map((i) => i.message).join("; ");
    throw badRequest(`This track job cannot run: ${why}`, [{ path: "gpu", message: why }]);
  }
  return {
    command: formatCommand({ argv: ["python3", job.entry, ...job.argv], env: job.env }),
    split: job.split,
    gpuSplit: plan.split,
  };
}
