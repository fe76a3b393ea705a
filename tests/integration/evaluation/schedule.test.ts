// Which evaluations the scheduler queues: the base and every N-th version (newest first, a few per pass),
// never one already evaluated on the current set version; under gated promotion the served version and the
// newest candidates whatever their number.
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { db } from "../../../server/platform/db/client";
import { closeQueues, queue } from "../../../server/platform/bus/queues";
import { createPersonaEvalSet, evaluationOverview } from "../../../server/evaluation/service";
import { scheduleEvaluations } from "../../../server/evaluation/schedule";
import { isolateRedis } from "../../helpers/isolate";
import { ADMIN, makeExperiment, makeRun } from "../../helpers/fixtures";
import { getPersona, questionsFor } from "../../../server/simulation/personas";
import { evaluateJobId } from "../../../server/evaluation/config";

isolateRedis("eval-schedule");
afterAll(() => closeQueues());

async function versions(
  experimentId: string,
  spec: [number, "ACTIVE" | "RETIRED" | "CANDIDATE"][],
  runId: string | null = null,
) {
  for (const [version, status] of spec)
    await db().policyVersion.create({
      data: { experimentId, version, status, checkpointPath: `/nowhere/v${version}`, runId },
    });
}

/** A finished evaluation of `version` on a set version with score `mean` (draw 1: a confirmation on fresh seeds). */
const scored = (experimentId: string, setVersionId: string, version: number, mean: number, draw = 0) =>
  db().evaluation.create({
    data: {
      experimentId,
      policyVersion: version,
      setVersionId,
      draw,
      status: "DONE",
      grader: "persona",
      graderVersion: "persona-v2",
      mean,
    },
  });

describe("evaluation scheduler", () => {
  it("queues the base and every N-th version, newest first, skipping evaluated ones", async () => {
    const e = await makeExperiment({ method: "grpo", evaluation: { enabled: true, every: 2 } });
    const set = await createPersonaEvalSet(null, { experimentId: e.id, name: "held-out personas", personas: ["leo"] });
    await versions(e.id, [
      [1, "RETIRED"],
      [2, "RETIRED"],
      [3, "RETIRED"],
      [4, "RETIRED"],
      [5, "RETIRED"],
      [6, "ACTIVE"],
    ]);
    await db().evaluation.create({
      data: {
        experimentId: e.id,
        policyVersion: 6,
        setVersionId: set.setVersionId,
        status: "DONE",
        grader: "persona",
        graderVersion: "persona-v1",
      },
    });
    const r = await scheduleEvaluations({ experimentIds: [e.id] });
    expect(r.queued.map((q) => q.version)).toEqual([4, 2, 0]);
    const jobs = await queue("evaluate").getJobs(["waiting", "prioritized", "delayed"]);
    expect(
      jobs
        .filter((j) => j.data.experimentId === e.id)
        .map((j) => j.data.version)
        .sort(),
    ).toEqual([0, 2, 4]);
    // Queueing again is a no-op while the jobs exist.
    await scheduleEvaluations({ experimentIds: [e.id] });
    expect(
      (await queue("evaluate").getJobs(["waiting", "prioritized", "delayed"])).filter(
        (j) => j.data.experimentId === e.id,
      ),
    ).toHaveLength(3);
  });

  it("under gated promotion, queues the served version and the newest candidates whatever N is", async () => {
    const e = await makeExperiment({
      method: "grpo",
      serving: { promotion: "gated" },
      evaluation: { enabled: true, every: 10 },
    });
    await createPersonaEvalSet(null, { experimentId: e.id, name: "held-out personas", personas: ["leo"] });
    await versions(e.id, [
      [1, "ACTIVE"],
      [2, "CANDIDATE"],
      [3, "CANDIDATE"],
      [4, "CANDIDATE"],
    ]);
    const r = await scheduleEvaluations({ experimentIds: [e.id] });
    // three per pass: the base comes on a later pass
    expect(r.queued.map((q) => q.version)).toEqual([1, 4, 3]);
  });

  it("with a gate set of its own (serving.gate.set), gates on that set and reports on the eval set", async () => {
    const e = await makeExperiment({
      method: "grpo",
      serving: { promotion: "gated", gate: { tolerance: 0.05, set: "asked questions" } },
      evaluation: { enabled: true, every: 10, set: "held-out personas" },
    });
    const reported = await createPersonaEvalSet(null, {
      experimentId: e.id,
      name: "held-out personas",
      personas: ["leo"],
    });
    // The gate set: the questions Leo asks, none of the held-out ones the eval set reports on.
    const gateSet = await createPersonaEvalSet(null, {
      experimentId: e.id,
      name: "asked questions",
      personas: ["leo"],
      questions: "asked",
    });
    const texts = async (setVersionId: string) =>
      (await db().evalItem.findMany({ where: { setVersionId } })).map((i) => JSON.stringify(i.messages));
    const asked = await texts(gateSet.setVersionId);
    expect(asked).toHaveLength(questionsFor(getPersona("leo")).length);
    const heldOut = new Set(await texts(reported.setVersionId));
    expect(heldOut.size).toBeGreaterThan(0);
    expect(asked.some((t) => heldOut.has(t))).toBe(false);
    await versions(
      e.id,
      [
        [1, "ACTIVE"],
        [2, "CANDIDATE"],
        [3, "CANDIDATE"],
      ],
      (await makeRun(e.id)).id,
    );
    // What each set is due: the gate's the served version and the candidates; the reported one the base (every 10).
    const first = await scheduleEvaluations({ experimentIds: [e.id] });
    expect(first.queued.map((q) => q.version)).toEqual([1, 3, 2, 0]);
    for (const v of [1, 3, 2])
      expect(await queue("evaluate").getJob(evaluateJobId(e.id, v, gateSet.setVersionId))).toBeDefined();
    expect(await queue("evaluate").getJob(evaluateJobId(e.id, 0, reported.setVersionId))).toBeDefined();
    expect(await queue("evaluate").getJob(evaluateJobId(e.id, 3, reported.setVersionId))).toBeUndefined();

    // The gate reads the gate set's scores: v3 passes there (its score on the reported set would not), v2 does not.
    // (Promotion serves a checkpoint folder that exists.)
    const dir = mkdtempSync(path.join(os.tmpdir(), "gate-set-"));
    writeFileSync(path.join(dir, "meta.json"), "{}");
    await db().policyVersion.updateMany({ where: { experimentId: e.id }, data: { checkpointPath: dir } });
    await scored(e.id, gateSet.setVersionId, 1, 0.5);
    await scored(e.id, gateSet.setVersionId, 2, 0.2);
    await scored(e.id, gateSet.setVersionId, 3, 0.7);
    await scored(e.id, reported.setVersionId, 1, 0.9);
    await scored(e.id, reported.setVersionId, 3, 0);
    const second = await scheduleEvaluations({ experimentIds: [e.id] });
    expect(second.promoted).toEqual([{ experimentId: e.id, version: 3 }]);
    const v2 = await db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, version: 2 } });
    expect(v2.gateReason).toBe("eval 0.200 < served v1's 0.500 − tolerance 0.050");
    // The Evaluation page shows both: the reported score, and beside it the one the gate read.
    const page = await evaluationOverview(ADMIN, { experimentId: e.id, limit: 50 });
    expect(page.gateSet).toEqual({ name: "asked questions", version: 1, items: asked.length });
    const row = (v: number) => page.versions.find((r) => r.version === v)!;
    expect([row(3).evaluation?.mean, row(3).gateEvaluation?.mean, row(3).status]).toEqual([0, 0.7, "ACTIVE"]);
    expect(page.candidates).toEqual([
      expect.objectContaining({ version: 2, evaluation: expect.objectContaining({ mean: 0.2 }) }),
    ]);
  });

  it("with serving.gate.confirm, queues what the gate waits for on its draws and promotes on the fresh pair", async () => {
    const e = await makeExperiment({
      method: "grpo",
      serving: { promotion: "gated", gate: { tolerance: 0.05, confirm: true } },
      evaluation: { enabled: true, every: 10 },
    });
    const set = await createPersonaEvalSet(null, { experimentId: e.id, name: "held-out personas", personas: ["leo"] });
    const dir = mkdtempSync(path.join(os.tmpdir(), "gate-confirm-"));
    writeFileSync(path.join(dir, "meta.json"), "{}");
    const runId = (await makeRun(e.id)).id;
    for (const [version, status] of [
      [1, "ACTIVE"],
      [2, "CANDIDATE"],
      [3, "CANDIDATE"],
    ] as const)
      await db().policyVersion.create({
        data: { experimentId: e.id, version, status, checkpointPath: dir, runId, gateDraw: version === 1 ? 1 : 0 },
      });
    // v1 was selected on draw 0 (a lucky 0.80) and confirmed on draw 1 (0.60): the candidates are compared on draw 1.
    await scored(e.id, set.setVersionId, 1, 0.8);
    await scored(e.id, set.setVersionId, 1, 0.6, 1);
    await scored(e.id, set.setVersionId, 3, 0.7, 1);
    const first = await scheduleEvaluations({ experimentIds: [e.id] });
    // v2 has no score on draw 1 yet; v3 passes there and waits for the fresh pair on draw 2; the base on draw 0 (report)
    expect(first.promoted).toEqual([]);
    expect(first.queued).toEqual([
      { experimentId: e.id, version: 2, draw: 1 },
      { experimentId: e.id, version: 3, draw: 2 },
      { experimentId: e.id, version: 1, draw: 2 },
      { experimentId: e.id, version: 0 },
    ]);
    for (const [v, draw] of [
      [2, 1],
      [3, 2],
      [1, 2],
    ])
      expect((await queue("evaluate").getJob(evaluateJobId(e.id, v!, set.setVersionId, draw)))?.data).toMatchObject({
        version: v,
        draw,
      });
    const reason = async (version: number) =>
      (await db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, version } })).gateReason;
    expect(await reason(3)).toBe(
      "passed (eval on fresh seeds 0.700 ≥ served v1's on fresh seeds 0.600 − tolerance 0.050); awaiting its confirmation on fresh seeds",
    );

    // The fresh pair: v3 0.62 against v1's 0.60 on draw 2 — promoted; v2 (0.50 on draw 1) held.
    await scored(e.id, set.setVersionId, 2, 0.5, 1);
    await scored(e.id, set.setVersionId, 3, 0.62, 2);
    await scored(e.id, set.setVersionId, 1, 0.6, 2);
    const second = await scheduleEvaluations({ experimentIds: [e.id] });
    expect(second.promoted).toEqual([{ experimentId: e.id, version: 3 }]);
    expect(await reason(2)).toBe("eval on fresh seeds 0.500 < served v1's on fresh seeds 0.600 − tolerance 0.050");
    // v3 is compared with from now on the draw its promotion was confirmed on
    expect((await db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, version: 3 } })).gateDraw).toBe(2);
    // The page shows the score the gate read for each version, on its latest draw.
    const page = await evaluationOverview(ADMIN, { experimentId: e.id, limit: 50 });
    const row = (v: number) => page.versions.find((r) => r.version === v)!;
    expect([row(3).status, row(3).gateEvaluation?.mean, row(3).gateEvaluation?.draw]).toEqual(["ACTIVE", 0.62, 2]);
    expect([row(1).evaluation?.mean, row(1).gateEvaluation?.draw]).toEqual([0.8, 2]);
    expect(page.gate.confirm).toBe(true);
  });

  it("queues nothing without an eval set or with evaluation off", async () => {
    const noSet = await makeExperiment({ method: "grpo", evaluation: { enabled: true } });
    const off = await makeExperiment({ method: "grpo" });
    await createPersonaEvalSet(null, { experimentId: off.id, name: "held-out personas", personas: ["leo"] });
    expect((await scheduleEvaluations({ experimentIds: [noSet.id, off.id] })).queued).toEqual([]);
  });
});
