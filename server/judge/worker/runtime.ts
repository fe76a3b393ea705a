// Process-wide judging state: ONE breaker registry and ONE limiter per kind of call (so circuits and
// concurrency are per endpoint and per process, not per job), and the backend/teacher built for each
// experiment, rebuilt only when the experiment's judge or policy config changes, or its live run's PRM
// routers do (endpoints.ts: where the calls go).
import type { ExperimentConfig } from "../../config/experimentConfig";
import { createJudgeBackend } from "../core/backends";
import type { JudgeBackend } from "../core/judgeBackend";
import { loadCustomReward } from "../core/customReward";
import type { FetchLike } from "../core/http";
import type { JudgeTurnDeps } from "../core/judgeTurn";
import { BreakerRegistry, Limiter, type BreakerOptions } from "../core/resilience";
import type { JudgeSettings } from "../core/schemas";
import { createTeacherScorer, type TeacherScorer } from "../core/teacherClients";
import { createEmbeddedTeacher } from "./embeddedTeacher";
import { RunPrmLookup, withRunPrm, type JudgeEndpoints, type RunPrm } from "./endpoints";
import {
  DEFAULT_CALL_POLICY,
  expectedJudgeVersion,
  judgeConfigHash,
  judgeSettingsFor,
  teacherPlanFor,
  type CallPolicy,
} from "./settings";

export type JudgeRuntimeOptions = {
  judgeCalls?: CallPolicy;
  teacherCalls?: CallPolicy;
  /** Judge calls in flight at once in this process (across all jobs). */
  judgeConcurrency?: number;
  /** Teacher scoring calls in flight at once (the reference's scripts use 1). */
  teacherConcurrency?: number;
  breaker?: BreakerOptions;
  /** Where relative custom reward modules and checkpoints resolve. */
  baseDir?: string;
  fetch?: FetchLike;
  /** Finds an experiment's live run's PRM routers (replaceable, e.g. for another egress check). */
  prmLookup?: RunPrmLookup;
};

export type ExperimentJudge = {
  hash: string;
  version: string;
  method: ExperimentConfig["method"];
  settings: JudgeSettings;
  backend?: JudgeBackend;
  teacher: TeacherScorer | null;
  /** Recorded on each judgment (settings.endpoints). */
  endpoints: JudgeEndpoints;
};

export class JudgeRuntime {
  readonly breakers: BreakerRegistry;
  readonly judgeLimiter: Limiter;
  readonly teacherLimiter: Limiter;
  readonly prm: RunPrmLookup;
  private readonly judges = new Map<string, ExperimentJudge>();
  private readonly judgeCalls: CallPolicy;
  private readonly teacherCalls: CallPolicy;
  private readonly baseDir: string;

  constructor(private readonly opts: JudgeRuntimeOptions = {}) {
    this.breakers = new BreakerRegistry(opts.breaker);
    this.judgeLimiter = new Limiter(opts.judgeConcurrency ?? 16);
    this.teacherLimiter = new Limiter(opts.teacherConcurrency ?? 1);
    this.judgeCalls = opts.judgeCalls ?? DEFAULT_CALL_POLICY;
    this.teacherCalls = opts.teacherCalls ?? DEFAULT_CALL_POLICY;
    this.baseDir = opts.baseDir ?? process.cwd();
    this.prm = opts.prmLookup ?? new RunPrmLookup();
  }

  /** The judge for an experiment right now: at its live run's PRM routers when the job reported them. */
  async forExperimentNow(experimentId: string, config: ExperimentConfig): Promise<ExperimentJudge> {
    const { prm, refused } = await this.prm.forExperiment(experimentId);
    return this.forExperiment(experimentId, config, prm, refused);
  }

  /** The judge for an experiment's (unsealed) config, cached per experiment, config hash and PRM routers. */
  forExperiment(
    experimentId: string,
    config: ExperimentConfig,
    prm: RunPrm | null = null,
    refused?: string,
  ): ExperimentJudge {
    const hash = `${judgeConfigHash(config)}:${JSON.stringify(prm)}:${refused ?? ""}`;
    const cached = this.judges.get(experimentId);
    if (cached?.hash === hash) return cached;
    const { judgeConfig, teacherConfig } = withRunPrm(config, prm);
    const settings = judgeSettingsFor(judgeConfig, this.judgeCalls, this.judgeLimiter.max);
    const b = judgeConfig.judge.backend;
    const backend =
      settings.kind === "custom"
        ? undefined
        : createJudgeBackend(settings, { apiKey: "apiKey" in b ? b.apiKey : undefined, fetch: this.opts.fetch });
    const plan = teacherPlanFor(teacherConfig, this.teacherCalls, this.teacherLimiter.max);
    const teacher =
      plan.kind === "embedded"
        ? createEmbeddedTeacher(plan.checkpoint, this.baseDir)
        : plan.kind === "remote"
          ? createTeacherScorer(plan.settings, { apiKey: plan.apiKey, fetch: this.opts.fetch })
          : null;
    const endpoints: JudgeEndpoints = {
      source: prm ? "run" : "experiment",
      ...(prm ? { runId: prm.runId, prmModelPath: prm.prmModelPath } : {}),
      judge: settings.kind === "openai" ? (settings.baseUrl ?? null) : null,
      teacher:
        plan.kind === "remote"
          ? (plan.settings.baseUrl ?? null)
          : plan.kind === "embedded"
            ? `embedded:${plan.checkpoint}`
            : null,
      ...(refused ? { refused } : {}),
    };
    // The version comes from the experiment's own config: the run's routers change where, not what.
    const judge: ExperimentJudge = {
      hash,
      version: expectedJudgeVersion(config),
      method: config.method,
      settings,
      backend,
      teacher,
      endpoints,
    };
    this.judges.set(experimentId, judge);
    return judge;
  }

  /** Dependencies for one judgeTurn call. Custom modules are (re)imported per call: an edited file is picked up. */
  async deps(judge: ExperimentJudge, signal?: AbortSignal): Promise<JudgeTurnDeps> {
    const customReward =
      judge.settings.kind === "custom" && judge.settings.customRewardPath
        ? await loadCustomReward(judge.settings.customRewardPath)
        : undefined;
    return {
      settings: judge.settings,
      backend: judge.backend,
      customReward,
      teacher: judge.teacher,
      teacherOptions: this.teacherCalls,
      breakers: this.breakers,
      judgeLimiter: this.judgeLimiter,
      teacherLimiter: this.teacherLimiter,
      signal,
    };
  }
}
