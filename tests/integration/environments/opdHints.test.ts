// Combine/OPD on agent episode steps, on a hand-made episode: the judge gave one step's turn an accepted hint
// with teacher log-probs, another none, and a third (hinted) was dropped by the estimator. Under combine the
// hinted step trains as BOTH (its step advantage plus the OPD term against the hinted teacher), the un-hinted
// one as RL with no OPD term, the dropped hinted one as OPD alone; under grpo the hint is ignored. Checked on
// the labels, on the trainer's built samples (the hinted teacher's log-probs) and on the per-token advantage
// terms the loss takes.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { initBackend } from "../../../server/engine/backend";
import { loadCheckpoint } from "../../../server/engine/checkpoint";
import { advantageTerms } from "../../../server/engine/losses";
import { EnvironmentCreateInput, TaskSetImportInput } from "../../../server/environments/schemas";
import { createEnvironment, importTaskSet } from "../../../server/environments/service";
import { effectiveLabelsForTurns } from "../../../server/labels/effective";
import { buildBatch } from "../../../server/training/trainInputs";
import { makeEndUserTurn } from "../../helpers/endUserTurns";
import { ADMIN, makeExperiment, makeRun } from "../../helpers/fixtures";

const HINT = "Call calc with the product first.";
const TASK = { id: "mul", prompt: "What is 6 * 7?", answer: "42", tools: ["calc"] };

async function hintedEpisode(method: "combine" | "grpo") {
  const e = await makeExperiment({
    method,
    policy: { kind: "embedded", checkpoint: "models/base" },
    hyper: { opdEstimator: "sampled", wOpd: 1, wRl: 1, batchSize: 2 },
  });
  const environmentId = (
    await createEnvironment(ADMIN, EnvironmentCreateInput.parse({ experiment: e.id, name: "tc", tools: ["calc"] }))
  ).id;
  await importTaskSet(
    ADMIN,
    TaskSetImportInput.parse({
      experiment: e.id,
      name: "one",
      format: "jsonl",
      text: JSON.stringify(TASK),
      heldOutFraction: 0,
    }),
  );
  const task = await db().task.findFirstOrThrow({ where: { setVersion: { set: { experimentId: e.id } } } });
  const turn = async (reply: string, hinted: boolean) => {
    const id = await makeEndUserTurn({ experimentId: e.id, endUserId: "agent", prompt: TASK.prompt, reply, reward: 1 });
    if (hinted)
      await db().judgment.updateMany({
        where: { turnId: id },
        // The teacher (hint in context) likes every token more than the policy did (−1): a positive OPD term.
        data: { hint: HINT, hintAccepted: true, teacherLogprobs: Array(reply.length + 1).fill(-0.25) },
      });
    return id;
  };
  const t = {
    hinted: await turn("I think 42.", true),
    plain: await turn("Maybe 40.", false),
    dropped: await turn("?", true),
  };
  await db().episode.create({
    data: {
      experimentId: e.id,
      environmentId,
      taskId: task.id,
      groupKey: `L1:${task.key}`,
      status: "DONE",
      outcome: 1,
      advantagesAt: new Date(),
      steps: {
        create: [
          { index: 0, turnId: t.hinted, action: {}, observation: {}, advantage: 0.5 },
          { index: 1, turnId: t.plain, action: {}, observation: {}, advantage: 0.5 },
          { index: 2, turnId: t.dropped, action: {}, observation: {}, advantage: null },
        ],
      },
    },
  });
  return { e, t };
}

describe("OPD hints on episode steps", () => {
  beforeAll(() => initBackend());

  it("a hinted step gets the OPD term (BOTH under combine), an un-hinted one does not", async () => {
    const { e, t } = await hintedEpisode("combine");
    const labels = await effectiveLabelsForTurns(Object.values(t));
    expect(labels.get(t.hinted)).toMatchObject({ kind: "BOTH", reward: 0.5, hint: HINT, excluded: false });
    expect(labels.get(t.hinted)!.teacherLogprobs).toHaveLength("I think 42.".length + 1);
    expect(labels.get(t.plain)).toMatchObject({ kind: "RL", reward: 0.5, hint: null, teacherLogprobs: null });
    // The estimator dropped it, but its hint still teaches: OPD alone, not excluded.
    expect(labels.get(t.dropped)).toMatchObject({ kind: "OPD", reward: 0, hint: HINT, excluded: false });
    for (const id of Object.values(t)) expect(labels.get(id)).toMatchObject({ groupNormalized: true, source: "JUDGE" });

    const runId = (await makeRun(e.id)).id;
    const { model } = await loadCheckpoint("models/base");
    const built = await buildBatch(
      [
        { id: "s-hinted", turnId: t.hinted },
        { id: "s-plain", turnId: t.plain },
      ],
      {
        runId,
        config: e.config,
        currentVersion: 0,
        model,
        teacher: () => {
          throw new Error("the judgment's teacher log-probs are used as they are");
        },
      },
    );
    expect(built.dropped).toEqual([]);
    const [hinted, plain] = built.samples;
    expect(hinted).toMatchObject({ kind: "BOTH", reward: 0.5, groupNormalized: true });
    // The sampled estimator takes the judgment's teacher log-probs (the hinted teacher's) as they are.
    expect(hinted!.teacherLogprobs).toEqual(Array("I think 42.".length + 1).fill(-0.25));
    // The loss kind is the method's (combine: BOTH for every sample); without a teacher the OPD term is 0.
    expect(plain).toMatchObject({ kind: "BOTH", reward: 0.5, groupNormalized: true });
    expect(plain!.teacherLogprobs).toBeFalsy();

    const terms = (s: NonNullable<typeof hinted>) => advantageTerms(s, s.oldLogprobs, e.config.hyper);
    const h = terms(hinted!);
    expect(h.rl.every((x) => x === 0.5)).toBe(true);
    expect(h.opd.every((x) => x > 0)).toBe(true);
    expect(h.opd[0]).toBeCloseTo(Math.min(e.config.hyper.advClamp || Infinity, 0.75), 6);
    const p = terms(plain!);
    expect(p.rl.every((x) => x === 0.5)).toBe(true);
    expect(p.opd.every((x) => x === 0)).toBe(true);
  }, 120_000);

  it("grpo ignores the hint: every step trains on its advantage alone", async () => {
    const { t } = await hintedEpisode("grpo");
    const labels = await effectiveLabelsForTurns(Object.values(t));
    expect(labels.get(t.hinted)).toMatchObject({ kind: "RL", reward: 0.5, hint: null, teacherLogprobs: null });
    expect(labels.get(t.dropped)).toMatchObject({ excluded: true, excludeReason: "step_dropped" });
  });
});
