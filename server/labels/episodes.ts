// What trains an agent episode's turns: not the judge's guess but the step advantage its GRPO group gave
// it (server/environments/advantages/group.ts), once every member of the group has ended. Until then the
// turn has no label (nothing to record yet); a step the estimator dropped, a step of a failed episode, or any
// step of a held-out task, is excluded with its reason. The verifier is the episode's judge, so the label's source reads JUDGE.
// Combine/OPD: where the judge gave the step's turn an accepted hint with its teacher log-probs (it judges each step
// on its observation, as a conversation turn on its next state), the step also gets the OPD term, as a hinted
// conversation turn does (judge/core/dispatch.ts): combine → BOTH (the step advantage plus the OPD term), opd → OPD
// only; a hinted step the estimator dropped still trains its OPD term. grpo ignores hints.
import { z } from "zod";
import { db, type Prisma } from "../platform/db/client";
import type { TrainingLabel } from "./trainingLabel";

/** Episode turns are recorded under proxy sessions named `episode-<episode id>-<attempt>`. */
export const EPISODE_SESSION_PREFIX = "episode-";

export const EPISODE_EXCLUDE = {
  dropped: "step_dropped",
  failed: "episode_failed",
  /** Held-out tasks measure the policy (pass@k, the gate): training on them would make the measure meaningless. */
  heldOut: "heldout_task",
} as const;

type Reader = Pick<Prisma.TransactionClient, "episodeStep" | "judgment" | "experiment">;

const MethodSchema = z
  .object({ method: z.enum(["grpo", "opd", "combine"]).catch("combine") })
  .catch({ method: "combine" });

/** The latest judgment's accepted hint with its teacher log-probs, per turn (the OPD teacher signal). */
async function stepHints(turnIds: string[], client: Reader) {
  const judgments = await client.judgment.findMany({
    where: { turnId: { in: turnIds } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { id: true, turnId: true, hint: true, hintAccepted: true, teacherLogprobs: true },
  });
  const out = new Map<string, { judgmentId: string; hint: string; teacherLogprobs: number[] }>();
  const seen = new Set<string>();
  for (const j of judgments) {
    if (seen.has(j.turnId)) continue;
    seen.add(j.turnId);
    if (j.hintAccepted && j.hint && j.teacherLogprobs.length)
      out.set(j.turnId, { judgmentId: j.id, hint: j.hint, teacherLogprobs: j.teacherLogprobs });
  }
  return out;
}

/** The label of every given turn that is an episode step (other turns are absent from the map). */
export async function episodeLabelsForTurns(
  turnIds: readonly string[],
  client: Reader = db(),
): Promise<Map<string, TrainingLabel>> {
  const steps = await client.episodeStep.findMany({
    where: { turnId: { in: [...turnIds] } },
    select: {
      turnId: true,
      advantage: true,
      episode: { select: { experimentId: true, status: true, advantagesAt: true, task: { select: { split: true } } } },
    },
  });
  const out = new Map<string, TrainingLabel>();
  if (!steps.length) return out;
  const experiments = await client.experiment.findMany({
    where: { id: { in: [...new Set(steps.map((s) => s.episode.experimentId))] } },
    select: { id: true, config: true },
  });
  const methodOf = new Map(experiments.map((e) => [e.id, MethodSchema.parse(e.config).method]));
  const hinted = [...methodOf.values()].some((m) => m !== "grpo")
    ? await stepHints(
        steps.map((s) => s.turnId!),
        client,
      )
    : new Map<string, never>();
  for (const s of steps) {
    const { experimentId, status, advantagesAt, task } = s.episode;
    const method = methodOf.get(experimentId) ?? "combine";
    const ready = advantagesAt !== null && (status === "DONE" || status === "FAILED");
    const hint = method !== "grpo" && ready ? (hinted.get(s.turnId!) ?? null) : null;
    const excludeReason = !ready
      ? null
      : task.split === "heldout"
        ? EPISODE_EXCLUDE.heldOut
        : status === "FAILED"
          ? EPISODE_EXCLUDE.failed
          : s.advantage === null && !hint
            ? EPISODE_EXCLUDE.dropped
            : null;
    // A hinted step: OPD alone under opd or where the estimator dropped its advantage, else BOTH.
    const kind = !hint || excludeReason ? "RL" : method === "opd" || s.advantage === null ? "OPD" : "BOTH";
    out.set(s.turnId!, {
      turnId: s.turnId!,
      experimentId,
      value: ready ? (s.advantage ?? 0) : null,
      source: ready ? "JUDGE" : null,
      labelId: null,
      judgmentId: kind === "RL" ? null : hint!.judgmentId,
      hint: kind === "RL" ? null : hint!.hint,
      hintFromTurnId: null,
      needsTeacherRescore: false,
      teacherLogprobs: kind === "RL" ? null : hint!.teacherLogprobs,
      kind,
      reward: ready && kind !== "OPD" ? (s.advantage ?? 0) : 0,
      groupNormalized: true,
      excluded: excludeReason !== null || !ready,
      excludeReason: excludeReason ?? (ready ? null : "episode_group_pending"),
    });
  }
  return out;
}
