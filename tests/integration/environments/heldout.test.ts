// Held-out tasks measure the policy, so their episodes never train: every step of a held-out task gets an
// excluded label (heldout_task) once its group has ended, while a training task's step trains at its advantage.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { EnvironmentCreateInput, TaskSetImportInput } from "../../../server/environments/schemas";
import { createEnvironment, importTaskSet } from "../../../server/environments/service";
import { EPISODE_EXCLUDE, episodeLabelsForTurns } from "../../../server/labels/episodes";
import { ADMIN, makeExperiment } from "../../helpers/fixtures";

describe("episode labels of held-out tasks", () => {
  it("excludes every step of a held-out task; a training task's step trains at its advantage", async () => {
    const exp = await makeExperiment();
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
          heldOutFraction: 0.5,
        }),
      )
    ).id;
    const tasks = await db().task.findMany({ where: { setVersion: { setId: taskSetId } } });
    const held = tasks.find((t) => t.split === "heldout")!;
    const train = tasks.find((t) => t.split === "train")!;
    expect(held && train).toBeTruthy();
    const now = new Date();
    for (const [task, turnId] of [
      [held, `t-held-${exp.id}`],
      [train, `t-train-${exp.id}`],
    ] as const) {
      await db().episode.create({
        data: {
          experimentId: exp.id,
          environmentId,
          taskId: task.id,
          groupKey: `L1:${task.key}`,
          status: "DONE",
          outcome: 1,
          advantagesAt: now,
          steps: { create: [{ index: 0, turnId, action: {}, observation: {}, advantage: 0.5 }] },
        },
      });
    }
    const labels = await episodeLabelsForTurns([`t-held-${exp.id}`, `t-train-${exp.id}`]);
    expect(labels.get(`t-held-${exp.id}`)).toMatchObject({
      excluded: true,
      excludeReason: EPISODE_EXCLUDE.heldOut,
    });
    expect(labels.get(`t-train-${exp.id}`)).toMatchObject({ excluded: false, excludeReason: null, reward: 0.5 });
  });
});
