// The trainer's backpressure on simulated users (server/simulation/pacing.ts): what counts as waiting for a step,
// which experiments are paced, and the runner holding new conversations while its trainer has a batch waiting.
import { afterAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { mayStart, PACING_WINDOW_MS, trainerBacklogs } from "../../../server/simulation/pacing";
import { ExperimentSimulation } from "../../../server/simulation/runner";
import { deleteExperiments, makeExperiment, makeRun } from "../../helpers/fixtures";
import { makeTurn, type TurnSpec } from "../../helpers/turns";

afterAll(() => deleteExperiments());

const embedded = (batchSize: number) => ({
  policy: { kind: "embedded" as const, checkpoint: "models/base" },
  trainer: { backend: "embedded" as const },
  hyper: { batchSize },
});

describe("trainerBacklogs", () => {
  it("counts a running embedded run's untrained, unexcluded main turns against its batch size", async () => {
    const { id: exp } = await makeExperiment(embedded(3));
    const run = await makeRun(exp, { status: "RUNNING", trainerBackend: "embedded" });
    const turn = (over: Partial<TurnSpec> = {}) =>
      makeTurn({ experimentId: exp, runId: run.id, content: "a reply", ...over });

    const waiting = [await turn(), await turn()]; // one judged and collected below, one not yet judged: both wait
    await db().sample.create({
      data: { runId: run.id, turnId: waiting[0]!, kind: "RL", reward: 1, labelSource: "JUDGE" },
    });
    const trained = await turn();
    const step = await db().trainingStep.create({ data: { runId: run.id, step: 1, policyVersion: 1 } });
    await db().sample.create({
      data: { runId: run.id, turnId: trained, kind: "RL", reward: 1, labelSource: "JUDGE", stepId: step.id },
    });
    const excluded = await turn();
    await db().sample.create({
      data: {
        runId: run.id,
        turnId: excluded,
        kind: "OPD",
        reward: 0,
        labelSource: "JUDGE",
        excluded: true,
        excludeReason: "stale",
      },
    });
    await turn({ turnType: "SIDE" });
    await turn({ status: "FAILED" });

    const [b] = await trainerBacklogs([exp]);
    expect(b).toEqual({ experimentId: exp, batchSize: 3, waiting: 2 });
    expect(mayStart(b)).toBe(true);

    await turn(); // a third waiting turn: a whole batch is waiting, new conversations hold
    const [full] = await trainerBacklogs([exp]);
    expect(full!.waiting).toBe(3);
    expect(mayStart(full)).toBe(false);
    // A turn that never gets judged stops counting once it is older than the window: it cannot hold the users forever.
    const later = new Date(Date.now() + PACING_WINDOW_MS + 60_000);
    expect((await trainerBacklogs([exp], later))[0]!.waiting).toBe(0);
  });

  it("does not pace experiments without a running embedded run", async () => {
    const { id: paused } = await makeExperiment(embedded(1));
    const p = await makeRun(paused, { status: "PAUSED", trainerBackend: "embedded" });
    await makeTurn({ experimentId: paused, runId: p.id, content: "a reply" });
    const { id: external } = await makeExperiment(embedded(1));
    const x = await makeRun(external, { status: "RUNNING", trainerBackend: "tinker" });
    await makeTurn({ experimentId: external, runId: x.id, content: "a reply" });
    const { id: none } = await makeExperiment(embedded(1));
    await makeTurn({ experimentId: none, content: "a reply" });

    expect(await trainerBacklogs([paused, external, none])).toEqual([]);
    expect(mayStart(undefined)).toBe(true);
  });
});

describe("ExperimentSimulation.tick", () => {
  it("starts no conversation while the trainer has a batch waiting, and starts one once it has taken it", async () => {
    let started = 0;
    const sim = new ExperimentSimulation(
      "exp",
      { perMinute: 600, concurrency: 1, personas: ["leo"], seed: 1, maxTurns: 1 },
      () => async () => {
        started++;
        return { content: "- a\n- b", toolCalls: [] };
      },
      "pacing",
    );
    sim.tick(false);
    expect(sim.activeCount).toBe(0);
    sim.tick(true);
    expect(sim.activeCount).toBe(1);
    await sim.stop();
    expect(started).toBeGreaterThan(0);
  });
});
