// The slime command of a run, whichever it is: an experiment with environments launches its track's job
// (tracks.ts, driver "console": the track's groups, estimator and PRM split, leasing the console's finished
// episode groups), any other the conversation job (args.ts). Both run from the slime checkout with the run's
// package, key and control-plane variables, so the Ray backend submits and supervises them alike.
import { planGpuSplit } from "../../../gpu/plan";
import { GpuSplitError } from "../../../gpu/schema";
import type { RunLaunch } from "../backend";
import { buildSlimeCommand, isRemoteUri, NUM_ROLLOUT_UNBOUNDED, shellQuote, type SlimeCommand } from "./args";
import { resolveModelPreset } from "./models";
import { SLIME_PROFILES } from "./profiles";
import { buildTrackJob, TrackJobError } from "./tracks";

export function slimeCommandFor(launch: RunLaunch): SlimeCommand {
  return launch.config.episodes ? buildEpisodeTrackCommand(launch) : buildSlimeCommand(launch);
}

export function buildEpisodeTrackCommand(launch: RunLaunch): SlimeCommand {
  const { config } = launch;
  const episodes = config.episodes!;
  const slime = config.slime;
  if (!slime) throw new Error(`run ${launch.runId}: the slime settings (hfCheckpoint, …) are missing from the config`);
  if (slime.profile !== "openclaw-rl-fork")
    throw new TrackJobError("a track job needs the OpenClaw-RL fork (step_wise, the PRM engines): set SLIME_PROFILE");
  if (!slime.saveDir) throw new TrackJobError("a track job saves checkpoints: set SLIME_SAVE_DIR");
  const gpu = config.gpu;
  const job = buildTrackJob({
    track: episodes.track,
    driver: "console",
    hfCheckpoint: slime.hfCheckpoint,
    refLoad: slime.refLoad ?? slime.hfCheckpoint,
    saveDir: slime.saveDir,
    modelPreset: slime.model && slime.model !== "custom" ? slime.model : undefined,
    nSamplesPerPrompt: episodes.nSamplesPerPrompt,
    rolloutBatchSize: episodes.groupsPerRollout,
    numRollout: NUM_ROLLOUT_UNBOUNDED,
    gpu: {
      nodes: gpu.nodes,
      gpusPerNode: gpu.gpusPerNode,
      actorGpus: gpu.actorGpus,
      rolloutGpus: gpu.rolloutGpus,
      rolloutGpusPerEngine: gpu.rolloutGpusPerEngine,
    },
    ...(gpu.prmGpus > 0
      ? {
          prm: {
            modelPath: slime.prmModelPath ?? slime.hfCheckpoint,
            gpus: gpu.prmGpus,
            gpusPerEngine: gpu.prmGpusPerEngine,
          },
        }
      : {}),
  });
  const plan = planGpuSplit(job.gpuSplit);
  if (!plan.ok) throw new GpuSplitError(plan.errors);

  const python = config.ray?.pythonEnv?.python ?? "python3";
  const argv = [python, "train_async.py", ...job.argv];
  const env: Record<string, string> = {
    CONTROL_PLANE_URL: config.controlPlaneUrl,
    RUN_ID: launch.runId,
    OPENCLAW_EXPERIMENT: launch.experimentSlug,
    // Episode samples carry rewards only: the job trains them as RL (step_wise advantages).
    OPENCLAW_METHOD: "grpo",
    PYTHONUNBUFFERED: "1",
    ...job.env,
  };
  const pythonPath = config.ray?.pythonEnv?.pythonPath;
  if (pythonPath && pythonPath.length > 0) env.PYTHONPATH = pythonPath.join(":");
  const workingDir = config.ray?.workingDir;
  const cwd = workingDir && !isRemoteUri(workingDir) ? workingDir : undefined;
  const line = argv.map(shellQuote).join(" ");
  return {
    entrypoint: cwd ? `cd ${shellQuote(cwd)} && ${line}` : line,
    argv,
    env,
    cwd,
    plan,
    profile: SLIME_PROFILES["openclaw-rl-fork"],
    model: resolveModelPreset(slime.model, slime.hfCheckpoint),
    backend: "megatron",
  };
}
