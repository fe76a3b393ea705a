// Where an experiment's judge votes and teacher log-probs go. A live run whose job reported PRM routers
// (the slime fork's --prm-* SGLang engines, reported by integrations/slime/rollout.py as prmUrl and
// prmTeacherUrl) is scored there: those GPUs were reserved for exactly this, and the PRM model is frozen, so
// it is the experiment's judge for as long as the run lives. Otherwise the experiment's configured endpoints.
//
// The run's routers stand in for the judge backend as an SGLang engine (OpenAI chat API for votes, native
// /generate for teacher log-probs), so the judge settings and teacher plan come from the same rules as for a
// configured SGLang judge. Votes move only from a configured SGLang judge (the PRM engines are what such a
// judge is); an OpenAI-API judge (e.g. a hosted model chosen on purpose), a heuristic or a custom judge keeps
// voting as configured, while teacher log-probs move to the run's PRM in every case. The judge version stays
// the config's (so the sweeper's expected version still matches); the judgment's settings.endpoints says where
// it was scored and which model served there. The configured judge's API key is never sent to the run's routers.
import type { ExperimentConfig } from "../../config/experimentConfig";
import { db } from "../../platform/db/client";
import { assertEgressAllowed } from "../../platform/egress";
import { LIVE_RUN_STATUSES } from "../../platform/db/runStatus";

/** The PRM routers of an experiment's live run. */
export type RunPrm = { runId: string; prmUrl: string; prmTeacherUrl: string | null; prmModelPath: string | null };

/** Stored with each judgment (settings.endpoints): which endpoints scored it, and why. */
export type JudgeEndpoints = {
  source: "run" | "experiment";
  runId?: string;
  judge: string | null;
  teacher: string | null;
  /** The model the run's PRM engines serve (--prm-model-path), when they scored the turn. */
  prmModelPath?: string | null;
  /** A run's router the egress policy refused (the experiment's endpoints were used instead). */
  refused?: string;
};

export type EgressCheck = (url: string) => Promise<void>;

/** Egress answers are kept this long per URL (as the proxy re-checks its upstream once a minute). */
const EGRESS_RECHECK_MS = 60_000;

export class RunPrmLookup {
  private readonly checked = new Map<string, { at: number; refused: string | null }>();

  constructor(
    private readonly checkEgress: EgressCheck = (url) => assertEgressAllowed(url),
    private readonly now: () => number = Date.now,
  ) {}

  /** The live run's PRM routers, or null (none reported, or refused by the egress policy: then `refused` says why). */
  async forExperiment(experimentId: string): Promise<{ prm: RunPrm | null; refused?: string }> {
    const run = await db().run.findFirst({
      where: { experimentId, status: { in: LIVE_RUN_STATUSES }, prmUrl: { not: null } },
      orderBy: { number: "desc" },
      select: { id: true, prmUrl: true, prmTeacherUrl: true, prmModelPath: true },
    });
    if (!run?.prmUrl) return { prm: null };
    for (const url of [run.prmUrl, run.prmTeacherUrl]) {
      const refused = url ? await this.refusal(url) : null;
      if (refused) return { prm: null, refused: `${url}: ${refused}` };
    }
    return {
      prm: { runId: run.id, prmUrl: run.prmUrl, prmTeacherUrl: run.prmTeacherUrl, prmModelPath: run.prmModelPath },
    };
  }

  /** Checked at call time too: the report accepted names that did not resolve yet, and policies change. */
  private async refusal(url: string): Promise<string | null> {
    const hit = this.checked.get(url);
    if (hit && this.now() - hit.at < EGRESS_RECHECK_MS) return hit.refused;
    let refused: string | null = null;
    try {
      await this.checkEgress(url);
    } catch (err) {
      refused = (err as Error).message;
    }
    this.checked.set(url, { at: this.now(), refused });
    return refused;
  }
}

/** The configs the judge settings (votes) and the teacher plan are built from, with the run's PRM in place. */
export function withRunPrm(
  config: ExperimentConfig,
  prm: RunPrm | null,
): { judgeConfig: ExperimentConfig; teacherConfig: ExperimentConfig } {
  if (!prm) return { judgeConfig: config, teacherConfig: config };
  const configured = config.judge.backend;
  const engine = (baseUrl: string, model: string): ExperimentConfig => ({
    ...config,
    judge: { ...config.judge, backend: { kind: "sglang", baseUrl, model } },
  });
  const model = "model" in configured ? configured.model : (prm.prmModelPath ?? "prm");
  return {
    judgeConfig: configured.kind === "sglang" ? engine(prm.prmUrl, model) : config,
    teacherConfig: engine(prm.prmTeacherUrl ?? prm.prmUrl, model),
  };
}
