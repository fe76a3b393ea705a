// The one transaction that makes a step real: TrainingStep + the samples it took (stepId, set once) + the
// new PolicyVersion (ACTIVE, the previous ACTIVE retired) + run.lastStep + the step's metric points.
// The checkpoint is already on disk; if this transaction does not commit, the step did not happen and its
// samples train again at the same step number (the unreferenced checkpoint is pruned later).
//
// Concurrency: the experiment row is locked (promote/rollback lock it too). A step whose parent is no
// longer ACTIVE (someone promoted or rolled back meanwhile) is kept as a CANDIDATE, not made live: the
// operator's choice wins, and the trainer continues from the version now ACTIVE. Under gated promotion every
// step's version is a CANDIDATE until its held-out evaluation passes.
import { db, type Prisma } from "../platform/db/client";
import { STARTED_RUN_STATUSES } from "../platform/db/runStatus";
import { ExperimentConfigSchema } from "../config/experimentConfig";
import { activeVersion, nextVersion } from "../policyVersions/active";
import type { SampleDecision } from "./decide";
import { metricRows, type Point } from "./metrics";
import type { StepRecord } from "./schemas";

export interface CommitInput {
  runId: string;
  experimentId: string;
  step: number;
  version: number;
  parentVersion: number;
  checkpointPath: string;
  checkpointSha: string;
  bytes: number;
  decisions: ReadonlyMap<string, SampleDecision>;
  record: StepRecord;
  durationMs: number;
  points: readonly Point[];
}

export type CommitOutcome =
  { status: "ACTIVE" | "CANDIDATE"; stepId: string; policyVersionId: string } | { status: "discarded"; reason: string };

class Discard extends Error {}

/** A gated step's version until the evaluation worker has graded it. */
export const GATE_AWAITING = "awaiting evaluation (gated promotion)";

export async function commitStep(c: CommitInput): Promise<CommitOutcome> {
  try {
    return await db().$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM experiments WHERE id = ${c.experimentId} FOR UPDATE`;
        const run = await tx.run.findUnique({
          where: { id: c.runId },
          select: { status: true, lastStep: true, config: true },
        });
        if (!run || !STARTED_RUN_STATUSES.includes(run.status))
          throw new Discard(`run is ${run?.status.toLowerCase() ?? "gone"}`);
        if (run.lastStep !== c.step - 1)
          throw new Discard(`step ${c.step} was already taken (run is at ${run.lastStep})`);
        if ((await nextVersion(c.experimentId, tx)) !== c.version)
          throw new Discard(`version ${c.version} was already taken`);
        // A gated experiment serves a version only once its evaluation passes (server/evaluation/gate.ts).
        const gated = ExperimentConfigSchema.safeParse(run.config).data?.serving.promotion === "gated";
        const promote = !gated && (await activeVersion(c.experimentId, tx)).version === c.parentVersion;

        const step = await tx.trainingStep.create({
          data: {
            runId: c.runId,
            step: c.step,
            policyVersion: c.version,
            metrics: c.record as unknown as Prisma.InputJsonValue,
            durationMs: Math.round(c.durationMs),
          },
        });
        for (const [id, d] of c.decisions) {
          const r = await tx.sample.updateMany({
            where: { id, runId: c.runId, stepId: null },
            data: {
              stepId: step.id,
              kind: d.kind,
              reward: d.reward,
              labelSource: d.labelSource,
              excluded: false,
              excludeReason: null,
              staleness: d.staleness,
            },
          });
          if (r.count !== 1) throw new Discard(`sample ${id} was already trained`);
        }
        const now = new Date();
        if (promote)
          await tx.policyVersion.updateMany({
            where: { experimentId: c.experimentId, status: "ACTIVE" },
            data: { status: "RETIRED" },
          });
        const pv = await tx.policyVersion.create({
          data: {
            experimentId: c.experimentId,
            runId: c.runId,
            version: c.version,
            parentVersion: c.parentVersion,
            status: promote ? "ACTIVE" : "CANDIDATE",
            checkpointPath: c.checkpointPath,
            checkpointSha: c.checkpointSha,
            bytes: c.bytes,
            step: c.step,
            promotedAt: promote ? now : null,
            gateReason: gated ? GATE_AWAITING : null,
          },
        });
        await tx.run.update({ where: { id: c.runId }, data: { lastStep: c.step } });
        const rows = metricRows(c.experimentId, c.runId, c.points, now);
        if (rows.length) await tx.metricPoint.createMany({ data: rows });
        return {
          status: promote ? ("ACTIVE" as const) : ("CANDIDATE" as const),
          stepId: step.id,
          policyVersionId: pv.id,
        };
      },
      { timeout: 60_000, maxWait: 30_000 },
    );
  } catch (e) {
    if (e instanceof Discard) return { status: "discarded", reason: e.message };
    // A unique step or version: another trainer got there first.
    if ((e as { code?: unknown }).code === "P2002")
      return { status: "discarded", reason: "a concurrent step committed first" };
    throw e;
  }
}
