// From a run to what its backend is given: the launch (the experiment's frozen config plus the operator's
// cluster settings and the run's key) and the handle status/stop/logs need.
import path from "node:path";
import { ExperimentConfigSchema, type ExperimentConfig } from "../config/experimentConfig";
import { RunLaunchConfigSchema, RunLaunchSchema, type RunHandle, type RunLaunch } from "./backends/backend";
import { controlPlaneUrl, type SupervisorSettings } from "./settings";

export interface LaunchTarget {
  runId: string;
  runNumber: number;
  experimentSlug: string;
  config: ExperimentConfig;
  /** The experiment's episode track (episodeTrack.ts), when it has environments. */
  episodes?: RunLaunch["config"]["episodes"];
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
      // On slime, OPD with the top-K estimator is the reference's top-K method (its own loss module, --distill-topk);
      // combine with it stays combine, whose command is upstream's hybrid (args.ts, from hyperparameters.opdEstimator).
      method: c.method === "opd" && h.opdEstimator === "topk" && c.trainer.backend !== "tinker" ? "topk" : c.method,
      hyperparameters: {
        lr: h.lr,
        epsClip: h.epsClip,
        epsClipHigh: h.epsClipHigh,
        klCoef: h.klCoef,
        entropyCoef: h.entropyCoef,
        batchSize: h.batchSize,
        wOpd: h.wOpd,
        wRl: h.wRl,
        maxStaleness: h.maxStaleness,
        dualClip: h.dualClip,
        normalizeAdvantages: h.normalizeAdvantages,
        advClamp: h.advClamp,
        topkDiffClip: h.topkDiffClip,
        opdEstimator: h.opdEstimator,
        distillTopK: h.topK,
      },
      hints: { selection: c.judge.hintSelection, m: c.judge.hintM ?? c.judge.votes },
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
        saveDir: s.SLIME_SAVE_DIR
          ? path.posix.join(s.SLIME_SAVE_DIR, t.experimentSlug, `run-${t.runNumber}`)
          : undefined,
        saveInterval: s.SLIME_SAVE_INTERVAL,
        prmModelPath: s.SLIME_PRM_MODEL_PATH,
        prmTeacherLoad: s.SLIME_PRM_TEACHER_LOAD,
        maxTokensPerGpu: s.SLIME_MAX_TOKENS_PER_GPU,
        customLossFunctionPath: c.customLossPath,
        extraArgs: s.SLIME_EXTRA_ARGS ?? [],
      },
      localProcess: s.LOCAL_PROCESS_ROLES
        ? { roles: s.LOCAL_PROCESS_ROLES, env: s.LOCAL_PROCESS_ENV ?? {} }
        : undefined,
      episodes: t.episodes,
      perUser: c.personalization === "per-user" ? { rank: c.perUser.rank, alpha: c.perUser.alpha } : undefined,
      finetune: c.trainer.finetune,
      policyModel: model,
      controlPlaneUrl: controlPlaneUrl(s),
      apiKey,
    },
  });
}

/** What status/stop/logs need: the run id, the job id and the Ray address (no key, no slime settings). */
export function handleFor(
  run: { id: string; externalJobId: string | null; config: unknown },
  s: SupervisorSettings,
): RunHandle {
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
