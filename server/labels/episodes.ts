// What trains an agent episode's turns: not the judge's guess but the step advantage its GRPO group gave
// it (server/environments/advantages/group.ts), once every member of the group has ended. Until then the
// turn has no label (nothing to record yet); a step the estimator dropped, a step of a failed episode, or any
// step of a held-out task, is excluded with its reason. The verifier is the episode's judge, so the label's source reads JUDGE.
import { db, type Prisma } from "../platform/db/client";
import type { TrainingLabel } from "./effective";

/** Episode turns are recorded under proxy sessions named `episode-<episode id>-<attempt>`. */
export const EPISODE_SESSION_PREFIX = "episode-";

export const EPISODE_EXCLUDE = {
  dropped: "step_dropped",
  failed: "episode_failed",
  /** Held-out tasks measure the policy (pass@k, the gate): training on them would make the measure meaningless. */
  heldOut: "heldout_task",
} as const;

type Reader = Pick<Prisma.TransactionClient, "episodeStep">;

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
  for (const s of steps) {
    const { experimentId, status, advantagesAt, task } = s.episode;
    const ready = advantagesAt !== null && (status === "DONE" || status === "FAILED");
    const excludeReason = !ready
      ? null
      : task.split === "heldout"
        ? EPISODE_EXCLUDE.heldOut
        : status === "FAILED"
          ? EPISODE_EXCLUDE.failed
          : s.advantage === null
            ? EPISODE_EXCLUDE.dropped
            : null;
    out.set(s.turnId!, {
      turnId: s.turnId!,
      experimentId,
      value: ready ? (s.advantage ?? 0) : null,
      source: ready ? "JUDGE" : null,
      labelId: null,
      judgmentId: null,
      hint: null,
      hintFromTurnId: null,
      needsTeacherRescore: false,
      teacherLogprobs: null,
      kind: "RL",
      reward: ready ? (s.advantage ?? 0) : 0,
      groupNormalized: true,
      excluded: excludeReason !== null || !ready,
      excludeReason: excludeReason ?? (ready ? null : "episode_group_pending"),
    });
  }
  return out;
}
