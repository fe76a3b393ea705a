// Held-out pass rates per policy version of an environment experiment (`evaluation.tasks`), from the episodes
// pinned to each version (episodes.ts runs them), and the promotion gate on them. Kept apart from the runner so
// the web process (service.ts) never loads the engine or the upstreams.
import { db } from "../platform/db/client";
import type { ExperimentConfig } from "../config/experimentConfig";
import { passAtK, wilson, type PassRate, type Proportion, type TaskAttempts } from "../environments/passRates";
import { gateOnScores } from "./gate";

type TasksConfig = NonNullable<ExperimentConfig["evaluation"]["tasks"]>;

/** The task set version (its latest) and the environment an experiment's held-out episodes run in. */
export async function taskEvaluationTarget(experimentId: string, tasks: TasksConfig) {
  const [set, environment] = await Promise.all([
    db().taskSet.findUnique({ where: { experimentId_name: { experimentId, name: tasks.taskSet } } }),
    db().environment.findUnique({ where: { experimentId_name: { experimentId, name: tasks.environment } } }),
  ]);
  if (!set || !environment || set.latestVersion === 0) return null;
  const setVersion = await db().taskSetVersion.findUnique({
    where: { setId_version: { setId: set.id, version: set.latestVersion } },
  });
  return setVersion ? { set, setVersion, environment } : null;
}

export interface VersionPassRates {
  version: number;
  episodes: number;
  /** not ended yet (QUEUED or RUNNING): the version's pass@1 is not final */
  pending: number;
  /** ended without an outcome: not attempts */
  failed: number;
  /** passes / attempts (DONE episodes), 95% Wilson interval: the gate's score */
  passAt1: Proportion;
  /** unbiased pass@k over tasks, 95% interval across tasks */
  passAtK: PassRate;
}

/** Held-out pass rates of every version evaluated on a task set version (pinned episodes), oldest first. */
export async function versionPassRates(
  experimentId: string,
  taskSetVersionId: string,
  k: number,
): Promise<VersionPassRates[]> {
  const rows = await db().episode.findMany({
    where: { experimentId, policyVersion: { not: null }, task: { setVersionId: taskSetVersionId } },
    select: { policyVersion: true, status: true, outcome: true, taskId: true },
  });
  const byVersion = new Map<number, typeof rows>();
  for (const r of rows) byVersion.set(r.policyVersion!, [...(byVersion.get(r.policyVersion!) ?? []), r]);
  return [...byVersion.entries()]
    .sort(([a], [b]) => a - b)
    .map(([version, eps]) => {
      const perTask = new Map<string, TaskAttempts>();
      for (const e of eps) {
        if (e.status !== "DONE" || e.outcome === null) continue;
        const t = perTask.get(e.taskId) ?? { n: 0, c: 0 };
        perTask.set(e.taskId, { n: t.n + 1, c: t.c + (e.outcome >= 1 ? 1 : 0) });
      }
      const attempts = [...perTask.values()];
      const sum = (f: (t: TaskAttempts) => number) => attempts.reduce((a, t) => a + f(t), 0);
      return {
        version,
        episodes: eps.length,
        pending: eps.filter((e) => e.status === "QUEUED" || e.status === "RUNNING").length,
        failed: eps.filter((e) => e.status === "FAILED").length,
        passAt1: wilson(
          sum((t) => t.c),
          sum((t) => t.n),
        ),
        passAtK: passAtK(attempts, k),
      };
    });
}

/** The promotion gate on held-out pass@1; a version with episodes still running has no score yet. */
export function gateOnTasks(experimentId: string, config: ExperimentConfig, rates: VersionPassRates[]) {
  const byVersion = new Map(rates.map((r) => [r.version, r]));
  return gateOnScores(
    experimentId,
    config,
    (version) => {
      const r = byVersion.get(version);
      if (!r || r.pending > 0) return { version, mean: null };
      return { version, mean: r.passAt1.mean, low: r.passAt1.low, high: r.passAt1.high };
    },
    "held-out pass@1",
  );
}
