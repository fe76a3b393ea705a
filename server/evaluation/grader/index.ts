// The grader an experiment's evaluation config names.
import type { ExperimentConfig } from "../../config/experimentConfig";
import { createJudgeBackend } from "../../judge/core/backends";
import { judgeSettingsFor } from "../../judge/worker/settings";
import { loadCustomGrader } from "./custom";
import { createJudgeGrader } from "./judge";
import { createPersonaGrader } from "./persona";
import type { Grader } from "./types";

/** `config` must be unsealed (the judge grader needs the judge's API key). */
export async function graderFor(config: ExperimentConfig): Promise<Grader> {
  const e = config.evaluation;
  if (e.grader === "persona") return createPersonaGrader();
  if (e.grader === "custom") return loadCustomGrader(e.graderPath!);
  const settings = judgeSettingsFor(config);
  if (settings.kind !== "openai")
    throw new Error("the judge grader needs a model judge (an OpenAI-compatible judge backend)");
  const b = config.judge.backend;
  const backend = createJudgeBackend(settings, { apiKey: "apiKey" in b ? b.apiKey : undefined });
  return createJudgeGrader({
    backend,
    votes: e.votes,
    temperature: config.judge.temperature,
    maxTokens: config.judge.maxTokens,
  });
}
