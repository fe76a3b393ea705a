// Hint memory (`hyper.hintMemory`), on a hand-made history: an end user's turn without a hint of its own is
// distilled toward the teacher with that user's latest accepted hint in context — not an earlier hint, not another
// user's, not a hint that came after it — so OPD trains on more than the corrected turns. With the option off the
// same turn gets no sample, as in the reference.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { initBackend } from "../../../server/engine/backend";
import { loadCheckpoint } from "../../../server/engine/checkpoint";
import { decode } from "../../../server/engine/tokenizer";
import { effectiveLabelsForTurns } from "../../../server/labels/effective";
import { collectSamples } from "../../../server/training/samples";
import { buildBatch } from "../../../server/training/trainInputs";
import { makeEndUserTurn } from "../../helpers/endUserTurns";
import { makeExperiment, makeRun } from "../../helpers/fixtures";

const OLD_HINT = "Keep it short.";
const HINT = "Use a bullet list.";

/** One turn a second from now on (after the run's start, so the run collects them), in this order. */
async function history(experimentId: string) {
  const t0 = Date.now() + 1000;
  const at = (second: number) => new Date(t0 + second * 1000);
  const turn = (endUserId: string, minute: number, reward: number, hint?: string) =>
    makeEndUserTurn({
      experimentId,
      endUserId,
      prompt: `Question ${minute}?`,
      reply: `Answer ${minute}.`,
      reward,
      createdAt: at(minute),
    }).then(async (id) => {
      if (hint)
        await db().judgment.updateMany({
          where: { turnId: id },
          data: { hint, hintAccepted: true, teacherLogprobs: Array(`Answer ${minute}.`.length + 1).fill(-1) },
        });
      return id;
    });
  return {
    // ann: approved before any hint, corrected twice (the later hint is the latest), then approved
    annFirst: await turn("ann", 0, 1),
    annOld: await turn("ann", 1, -1, OLD_HINT),
    annCorrected: await turn("ann", 2, -1, HINT),
    annLater: await turn("ann", 3, 1),
    // a hint that was not accepted is no hint
    annRejectedHint: await db()
      .judgment.findFirstOrThrow({ where: { turnId: await turn("ann", 4, 0) } })
      .then(async (j) => {
        await db().judgment.update({ where: { id: j.id }, data: { hint: "Ignore this.", hintAccepted: false } });
        return j.turnId;
      }),
    // bob never corrected anything: ann's hint is not his
    bob: await turn("bob", 5, 1),
  };
}

describe("hint memory", () => {
  beforeAll(() => initBackend());

  it("gives a user's later un-corrected turns their latest accepted hint as OPD teacher context", async () => {
    const e = await makeExperiment({
      method: "opd",
      policy: { kind: "embedded", checkpoint: "models/base" },
      hyper: { hintMemory: true, opdEstimator: "full", batchSize: 4 },
    });
    const runId = (await makeRun(e.id)).id;
    const t = await history(e.id);

    const labels = await effectiveLabelsForTurns(Object.values(t));
    const of = (id: string) => labels.get(id)!;
    expect(of(t.annFirst)).toMatchObject({ hint: null, hintFromTurnId: null });
    // a corrected turn keeps its own hint and its judgment's teacher log-probs
    expect(of(t.annCorrected)).toMatchObject({ hint: HINT, hintFromTurnId: null, needsTeacherRescore: false });
    expect(of(t.annLater)).toMatchObject({ hint: HINT, hintFromTurnId: t.annCorrected, needsTeacherRescore: true });
    expect(of(t.annRejectedHint)).toMatchObject({ hint: HINT, hintFromTurnId: t.annCorrected });
    expect(of(t.bob)).toMatchObject({ hint: null, hintFromTurnId: null });

    await collectSamples(runId);
    const samples = await db().sample.findMany({ where: { runId } });
    const sample = (turnId: string) => samples.find((s) => s.turnId === turnId)!;
    for (const id of [t.annOld, t.annCorrected, t.annLater, t.annRejectedHint])
      expect(sample(id)).toMatchObject({ kind: "OPD", excluded: false });
    for (const id of [t.annFirst, t.bob]) expect(sample(id)).toMatchObject({ excluded: true });

    // The trainer scores the teacher on the served prompt with the remembered hint appended.
    const { model } = await loadCheckpoint("models/base");
    const built = await buildBatch([{ id: sample(t.annLater).id, turnId: t.annLater }], {
      runId,
      config: e.config,
      currentVersion: 0,
      model,
      teacher: () => {
        throw new Error("the full estimator scores the teacher in the trainer");
      },
    });
    expect(built.dropped).toEqual([]);
    expect(built.trace[0]).toMatchObject({ kind: "OPD", teacher: "step" });
    const teacherPrompt = decode(built.samples[0]!.teacherPromptIds!);
    expect(teacherPrompt).toContain("Question 3?");
    expect(teacherPrompt).toContain(HINT);
    expect(teacherPrompt).not.toContain(OLD_HINT);
  });

  it("is off by default: the un-corrected turn has no hint and no OPD sample", async () => {
    const e = await makeExperiment({ method: "opd", policy: { kind: "embedded", checkpoint: "models/base" } });
    expect(e.config.hyper.hintMemory).toBe(false);
    const runId = (await makeRun(e.id)).id;
    const t = await history(e.id);
    expect((await effectiveLabelsForTurns([t.annLater])).get(t.annLater)).toMatchObject({
      hint: null,
      hintFromTurnId: null,
    });
    await collectSamples(runId);
    expect(await db().sample.findFirst({ where: { runId, turnId: t.annLater } })).toMatchObject({
      excluded: true,
      excludeReason: "no_valid_hint",
    });
  });
});
