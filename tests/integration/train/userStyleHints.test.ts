// User style hints (`hyper.userStyleHints`): a first reply corrected for its content alone ("answer the question …"),
// in a conversation with no earlier hint, has the OPD teacher and the hindsight demonstrations' teacher hear the same
// end user's latest style hint the run heard — after the turn's own hint — and only the same user's: another user's,
// an anonymous turn, a hint about style of the turn's own, and the option off each leave the turn's hint alone.
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { loadCheckpoint } from "../../../server/engine/checkpoint";
import { decode } from "../../../server/engine/tokenizer";
import { buildBatch, withUserStyle } from "../../../server/training/trainInputs";
import { makeExperiment, makeRun } from "../../helpers/fixtures";
import { makeSession } from "../../helpers/turns";
import { makeCorrectedTurn } from "../../helpers/judgments";

const STYLE = "Follow the user's feedback: use a bullet list.";
const OTHER_STYLE = "Follow the user's feedback: end with a sign-off.";
const TOPIC = "Answer the question the user asked: How do I boil an egg?";
const Q = { role: "user", content: "How do I boil an egg?" };

describe("user style hints", () => {
  beforeAll(() => initBackend());

  const build = async (o: { on: boolean; endUserId?: string; hint?: string; hindsight?: boolean }) => {
    const e = await makeExperiment({
      method: "opd",
      policy: { kind: "embedded", checkpoint: "models/base" },
      hyper: { batchSize: 1, hindsightSamples: o.hindsight ? 1 : 0, hindsightMinLogprob: -10, userStyleHints: o.on },
    });
    const runId = (await makeRun(e.id)).id;
    const session = await makeSession(e.id);
    const turnId = await makeCorrectedTurn({
      experimentId: e.id,
      sessionId: session.id,
      index: 0,
      request: [Q],
      reply: "Rice needs water.",
      hint: o.hint ?? TOPIC,
      endUserId: o.endUserId,
    });
    const { model } = await loadCheckpoint("models/base");
    const built = await buildBatch([{ id: "sample", turnId }], {
      runId,
      config: e.config,
      currentVersion: 0,
      model,
      base: o.hindsight ? model : undefined,
      seed: 1,
      teacher: () => {
        throw new Error("the full estimator scores the teacher in the trainer");
      },
      // the run heard Leo ask for lists and Ava for a sign-off in earlier batches
      rememberedStyleHints: new Map([
        ["leo", STYLE],
        ["ava", OTHER_STYLE],
      ]),
    });
    expect(built.dropped).toEqual([]);
    return { built, teacher: decode(built.samples[0]!.teacherPromptIds!) };
  };

  it("adds the user's remembered style hint after a content-only hint", async () => {
    const { teacher } = await build({ on: true, endUserId: "leo" });
    expect(teacher).toContain(`${TOPIC} ${STYLE}`);
    expect(teacher).not.toContain(OTHER_STYLE);
  });

  it("adds it to the hindsight demonstrations' teacher too", async () => {
    const { built } = await build({ on: true, endUserId: "leo", hindsight: true });
    // the demonstration trains the un-hinted prompt; its hinted prompt is the teacher's (hindsightTarget teacher keeps it)
    expect(built.demos.length).toBeGreaterThan(0);
    const { built: off } = await build({ on: false, endUserId: "leo", hindsight: true });
    // the same seed and prompt, another teacher context: other demonstrations
    expect(built.demos.map((d) => d.responseIds.join(","))).not.toEqual(off.demos.map((d) => d.responseIds.join(",")));
  });

  it("leaves the hint alone when off, for an anonymous turn, or for a hint about style", async () => {
    expect((await build({ on: false, endUserId: "leo" })).teacher).not.toContain(STYLE);
    expect((await build({ on: true })).teacher).not.toContain(STYLE);
    const own = await build({ on: true, endUserId: "ava", hint: STYLE });
    expect(own.teacher).toContain(STYLE);
    expect(own.teacher).not.toContain(OTHER_STYLE);
  });

  it("appends after the conversation's earlier hints, once", () => {
    expect(withUserStyle(undefined, TOPIC, [Q], STYLE)).toEqual([STYLE]);
    expect(withUserStyle([OTHER_STYLE], TOPIC, [Q], STYLE)).toEqual([OTHER_STYLE, STYLE]);
    expect(withUserStyle([STYLE], TOPIC, [Q], STYLE)).toEqual([STYLE]);
    expect(withUserStyle(undefined, STYLE, [Q], OTHER_STYLE)).toBeUndefined();
    expect(withUserStyle(undefined, TOPIC, [Q], undefined)).toBeUndefined();
  });
});
