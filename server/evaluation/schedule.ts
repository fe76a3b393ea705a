// Which evaluations are due, queued for workers/evaluate (deterministic job ids: queueing again is a no-op
// while the job exists, and an existing evaluation row is never queued again unless it is re-requested).
// Due, per experiment with evaluation enabled and an eval set: version 0 (the base checkpoint) and every
// `every`-th version; under gated promotion also the served version and the newest candidates, whatever
// their number, since the gate needs both scores. An environment experiment (`evaluation.tasks`) is evaluated
// the same way on its task set's held-out split, as episodes (episodes.ts).
import { db } from "../platform/db/client";
import { enqueue } from "../platform/bus/queues";
import { checkAutoRollback, applyGate } from "./gate";
import { evaluateJobId, evaluationConfig } from "./config";
import { currentSetVersion } from "./sets";
import { gateOnTasks, taskEvaluationTarget, versionPassRates } from "./taskRates";

/** At most this many versions are queued per experiment per pass (newest first). */
const PER_PASS = 3;
const CANDIDATES_PER_PASS = 2;

export interface ScheduleResult {
  queued: { experimentId: string; version: number }[];
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
    let svId: string;
    let evaluated: number[];
    if (tasks) {
      const target = await taskEvaluationTarget(id, tasks);
      if (!target) continue;
      svId = target.setVersion.id;
      const rates = await versionPassRates(id, svId, tasks.k);
      const gate = await gateOnTasks(id, config, rates);
      if (gate.promoted !== null) out.promoted.push({ experimentId: id, version: gate.promoted });
      evaluated = rates.map((r) => r.version);
    } else {
      const current = await currentSetVersion(id, config.evaluation.set);
      if (!current) continue;
      svId = current.setVersion.id;
      const gate = await applyGate(id, config, svId);
      if (gate.promoted !== null) out.promoted.push({ experimentId: id, version: gate.promoted });
      evaluated = (
        await db().evaluation.findMany({
          where: { experimentId: id, setVersionId: svId },
          select: { policyVersion: true },
        })
      ).map((e) => e.policyVersion);
    }
    const target = tasks ? ("tasks" as const) : ("evalSet" as const);

    const [versions, active] = await Promise.all([
      db().policyVersion.findMany({
        where: { experimentId: id },
        orderBy: { version: "desc" },
        select: { version: true, status: true, checkpointPath: true },
      }),
      db().policyVersion.findFirst({ where: { experimentId: id, status: "ACTIVE" }, select: { version: true } }),
    ]);
    const seen = new Set(evaluated);
    const served = active?.version ?? 0;
    const embedded = config.policy.kind === "embedded";
    const due: number[] = [];
    const want = (v: number) => !seen.has(v) && !due.includes(v) && due.push(v);
    if (config.serving.promotion === "gated") {
      want(served);
      versions
        .filter((v) => v.status === "CANDIDATE" && v.version > served && v.checkpointPath)
        .slice(0, CANDIDATES_PER_PASS)
        .forEach((v) => want(v.version));
    }
    if (embedded) {
      for (const v of versions)
        if (v.version % config.evaluation.every === 0 && v.checkpointPath && due.length < PER_PASS) want(v.version);
      if (due.length < PER_PASS) want(0);
    } else if (served % config.evaluation.every === 0) {
      want(served); // an external upstream can only be evaluated on what it serves now
    }
    for (const version of due) {
      await enqueue(
        "evaluate",
        { experimentId: id, version, setVersionId: svId, target },
        evaluateJobId(id, version, svId),
      );
      out.queued.push({ experimentId: id, version });
    }
  }
  return out;
}
