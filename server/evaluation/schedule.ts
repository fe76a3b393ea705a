// Which evaluations are due, queued for workers/evaluate (deterministic job ids: queueing again is a no-op
// while the job exists, and an existing evaluation row is never queued again unless it is re-requested).
// Due, per experiment with evaluation enabled and an eval set: version 0 (the base checkpoint) and every
// `every`-th version; under gated promotion also the served version and the newest candidates, whatever
// their number, since the gate needs both scores (under serving.gate.confirm: what the gate says it waits for, on
// its current draw of seeds and a fresh one) — on the gate's own set when `serving.gate.set` names another
// than the reported one (each set then gets its own per-pass share). An environment experiment (`evaluation.tasks`)
// is evaluated the same way on its task set's held-out split, as episodes (episodes.ts).
import { db } from "../platform/db/client";
import { enqueue } from "../platform/bus/queues";
import { checkAutoRollback, applyGate, NEWEST_CANDIDATES } from "./gate";
import { evaluateJobId, evaluationConfig } from "./config";
import { currentSetVersion } from "./sets";
import { gateOnTasks, taskEvaluationTarget, versionPassRates } from "./taskRates";

/** At most this many versions are queued per experiment and set per pass (newest first). */
const PER_PASS = 3;

export interface ScheduleResult {
  queued: { experimentId: string; version: number; draw?: number }[];
  rolledBack: { experimentId: string; reason: string }[];
  promoted: { experimentId: string; version: number }[];
}

export async function scheduleEvaluations(
  opts: { experimentIds?: readonly string[]; log?: (...a: unknown[]) => void } = {},
): Promise<ScheduleResult> {
  const log = opts.log ?? (() => {});
  const out: ScheduleResult = { queued: [], rolledBack: [], promoted: [] };
  const experiments = await db().experiment.findMany({
    where: { status: "ACTIVE", ...(opts.experimentIds ? { id: { in: [...opts.experimentIds] } } : {}) },
    select: { id: true },
  });
  for (const { id } of experiments) {
    const config = await evaluationConfig(id);
    if (!config) continue;
    const rb = await checkAutoRollback(id, config).catch(
      (e: Error) => (log(`auto-rollback check of ${id} failed: ${e.message}`), null),
    );
    if (rb?.rolledBack) out.rolledBack.push({ experimentId: id, reason: rb.reason });
    if (!config.evaluation.enabled) continue;
    // An environment experiment evaluates on its task set's held-out split (episodes.ts), else on an eval set.
    const tasks = config.evaluation.tasks;
    const [versions, active] = await Promise.all([
      db().policyVersion.findMany({
        where: { experimentId: id },
        orderBy: { version: "desc" },
        select: { version: true, status: true, checkpointPath: true },
      }),
      db().policyVersion.findFirst({ where: { experimentId: id, status: "ACTIVE" }, select: { version: true } }),
    ]);
    const served = active?.version ?? 0;
    // What the gate needs on the common draw: the served version and the newest candidates, whatever their number
    // (under serving.gate.confirm the gate names what it waits for, on its own draws: below).
    const forGate =
      config.serving.promotion === "gated" && !config.serving.gate.confirm
        ? [
            served,
            ...versions
              .filter((v) => v.status === "CANDIDATE" && v.version > served && v.checkpointPath)
              .slice(0, NEWEST_CANDIDATES)
              .map((v) => v.version),
          ]
        : [];
    // What the Evaluation page reports: the base and every N-th version (an external upstream: what it serves now).
    const embedded = config.policy.kind === "embedded";
    const forReport = embedded
      ? [
          ...versions
            .filter((v) => v.version % config.evaluation.every === 0 && v.checkpointPath)
            .map((v) => v.version),
          0,
        ]
      : served % config.evaluation.every === 0
        ? [served]
        : [];
    const queue = async (
      svId: string,
      evaluated: readonly number[],
      target: "tasks" | "evalSet",
      ...lists: number[][]
    ) => {
      const seen = new Set(evaluated);
      const due: number[] = [];
      for (const v of lists.flat()) if (due.length < PER_PASS && !seen.has(v) && !due.includes(v)) due.push(v);
      for (const version of due) {
        await enqueue(
          "evaluate",
          { experimentId: id, version, setVersionId: svId, target },
          evaluateJobId(id, version, svId),
        );
        out.queued.push({ experimentId: id, version });
      }
    };
    // An environment experiment evaluates on its task set's held-out split (episodes.ts), else on an eval set.
    if (tasks) {
      const target = await taskEvaluationTarget(id, tasks);
      if (!target) continue;
      const rates = await versionPassRates(id, target.setVersion.id, tasks.k);
      const gate = await gateOnTasks(id, config, rates);
      if (gate.promoted !== null) out.promoted.push({ experimentId: id, version: gate.promoted });
      await queue(
        target.setVersion.id,
        rates.map((r) => r.version),
        "tasks",
        forGate,
        forReport,
      );
      continue;
    }
    const reported = await currentSetVersion(id, config.evaluation.set);
    // serving.gate.set: the gate reads another set than the one reported, each queued on its own
    const gateSet = config.serving.gate.set ? await currentSetVersion(id, config.serving.gate.set) : reported;
    const gate = gateSet ? await applyGate(id, config, gateSet.setVersion.id) : null;
    if (gate?.promoted != null) out.promoted.push({ experimentId: id, version: gate.promoted });
    // serving.gate.confirm: the gate names what it waits for — the served version and the newest candidates on its
    // current draw, a winner and the served version on a fresh one
    if (gateSet && config.serving.gate.confirm) {
      const svId = gateSet.setVersion.id;
      for (const { version, draw } of gate!.due.slice(0, PER_PASS)) {
        await enqueue(
          "evaluate",
          { experimentId: id, version, setVersionId: svId, target: "evalSet", draw },
          evaluateJobId(id, version, svId, draw),
        );
        out.queued.push({ experimentId: id, version, ...(draw ? { draw } : {}) });
      }
    }
    const evaluatedOn = async (svId: string) =>
      (
        await db().evaluation.findMany({
          where: { experimentId: id, setVersionId: svId, draw: 0 },
          select: { policyVersion: true },
        })
      ).map((e) => e.policyVersion);
    if (gateSet && gateSet.setVersion.id !== reported?.setVersion.id)
      await queue(gateSet.setVersion.id, await evaluatedOn(gateSet.setVersion.id), "evalSet", forGate);
    if (reported)
      await queue(
        reported.setVersion.id,
        await evaluatedOn(reported.setVersion.id),
        "evalSet",
        gateSet?.setVersion.id === reported.setVersion.id ? forGate : [],
        forReport,
      );
  }
  return out;
}
