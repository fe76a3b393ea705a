// Episodes feed the embedded trainer: a GRPO group of tool-call episodes runs against the embedded policy
// (the committed base checkpoint) through the real recording proxy, the group's advantages are written, and
// the trainer's own loop collects the episode turns as samples at their step advantages and trains a step on
// them (a new policy version). Whether it learns is bench/learning's kind of claim, not this test's.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { EnvironmentCreateInput, EpisodeLaunchInput, TaskSetImportInput } from "../../../server/environments/schemas";
import { createEnvironment, importTaskSet, launchEpisodes } from "../../../server/environments/service";
import { startEpisodeWorker } from "../../../server/environments/episodes/worker";
import { ADMIN, makeExperiment, makeKey, makeRun } from "../../helpers/fixtures";
import { isolateRedis } from "../../helpers/isolate";
import { useTrainingLoop } from "../../helpers/trainingLoop";
import { waitFor } from "../../helpers/waitFor";

isolateRedis("env-train");

const loop = useTrainingLoop("env-train", { fillEveryMs: 0 });

describe("episodes → group advantages → the embedded trainer", () => {
  it("trains a step on episode turns at their step advantages", async () => {
    const exp = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: path.resolve("models/base") },
      hyper: { batchSize: 2, lr: 1e-3 },
    });
    const run = await makeRun(exp.id);
    const key = await makeKey(["proxy"], exp.id);
    const environmentId = (
      await createEnvironment(
        ADMIN,
        EnvironmentCreateInput.parse({ experiment: exp.id, name: "toolcall", tools: ["calc", "lookup"] }),
      )
    ).id;
    const taskSetId = (
      await importTaskSet(
        ADMIN,
        TaskSetImportInput.parse({
          experiment: exp.id,
          name: "arithmetic",
          format: "jsonl",
          text: readFileSync("examples/environments/toolcall/arithmetic.jsonl", "utf8"),
          heldOutFraction: 0,
        }),
      )
    ).id;
    const worker = startEpisodeWorker({
      agentFor: async () => ({ baseUrl: `${loop.proxy.url}/v1`, apiKey: key, model: exp.slug }),
      concurrency: 2,
      perEnvironment: 2,
      staleMs: 3_600_000,
      maxAttempts: 2,
      sweepMs: 3_600_000,
      experimentIds: [exp.id],
    });
    loop.onClose(() => worker.close());
    const launch = await launchEpisodes(
      ADMIN,
      EpisodeLaunchInput.parse({ environmentId, taskSetId, taskKeys: ["mul-17-23"], n: 3, maxSteps: 2 }),
    );
    const episodes = await waitFor(
      "the group's advantages",
      async () => {
        const rows = await db().episode.findMany({
          where: { groupKey: `${launch.launchId}:mul-17-23` },
          include: { steps: true },
        });
        return rows.every((e) => e.advantagesAt !== null) ? rows : null;
      },
      240_000,
    );
    expect(episodes.map((e) => e.status)).toEqual(["DONE", "DONE", "DONE"]);
    const steps = episodes.flatMap((e) => e.steps);
    const advantageOf = new Map(steps.map((s) => [s.turnId!, s.advantage]));
    await waitFor("the episode turns", async () =>
      (await db().turn.count({ where: { id: { in: [...advantageOf.keys()] } } })) === steps.length ? true : null,
    );

    const r = await loop.trainer.tick(run.id);
    expect(r.step).toMatchObject({ step: 1, version: 1 });
    const trained = await db().sample.findMany({ where: { runId: run.id, stepId: { not: null } } });
    expect(trained).toHaveLength(2);
    for (const s of trained) {
      expect(advantageOf.has(s.turnId)).toBe(true);
      expect(s).toMatchObject({ kind: "RL", labelSource: "JUDGE", excluded: false });
      expect(s.reward).toBe(advantageOf.get(s.turnId));
    }
  });
});
