// Extrapolated distillation (ExOPD): the teacher softmax(log π_base + λ·(log π_hinted − log π_base)) on a
// hand-computed case, λ = 1 leaving the hinted teacher as it is, and trainStep refusing λ ≠ 1 without the base.
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { Adam } from "../../../server/engine/optimizer";
import { extrapolate, trainStep } from "../../../server/engine/train";
import { microModel } from "./helpers";

beforeAll(async () => {
  await initBackend();
});

const P = [257, 72, 105, 260, 258];

describe("ExOPD teacher", () => {
  const dist = (lambda: number) => {
    const base = tf.log(tf.tensor3d([[[0.5, 0.5]]]));
    const hinted = { logp: tf.log(tf.tensor3d([[[0.8, 0.2]]])) as tf.Tensor3D, rows: tf.tensor2d([[1]]) };
    const out = extrapolate(hinted, base, lambda);
    const p = Array.from(tf.exp(out.logp).dataSync());
    tf.dispose([base, out.logp, out.rows]);
    return p;
  };

  it("moves the hinted teacher λ times its difference from the base, renormalised", () => {
    // λ = 2: 0.5·(0.8/0.5)² = 1.28 and 0.5·(0.2/0.5)² = 0.08, over 1.36.
    const p = dist(2);
    expect(p[0]).toBeCloseTo(1.28 / 1.36, 5);
    expect(p[1]).toBeCloseTo(0.08 / 1.36, 5);
  });

  it("is the hinted teacher at λ = 1", () => {
    const p = dist(1);
    expect(p[0]).toBeCloseTo(0.8, 5);
    expect(p[1]).toBeCloseTo(0.2, 5);
  });
});

describe("trainStep with ExOPD", () => {
  const samples = [
    {
      promptIds: P,
      responseIds: [65, 66, 260],
      oldLogprobs: [0, 0, 0],
      reward: 0,
      kind: "OPD" as const,
      teacherPromptIds: [257, 72, 105, 106, 260, 258],
    },
  ];

  it("distils toward a sharper teacher than λ = 1, and needs the base to do it", async () => {
    const kl = async (lambda: number) => {
      const [model, teacher, base] = [microModel(3, 4), microModel(5, 4), microModel(3, 4)];
      const adam = new Adam({ lr: 0 });
      const m = await trainStep(
        model,
        adam,
        samples,
        { opdEstimator: "full", opdExtrapolation: lambda, oldLogprobs: "decoupled" },
        { teacherModel: teacher, refModel: base },
      );
      adam.dispose();
      return m["train/distill_kl"]!;
    };
    const [one, two] = [await kl(1), await kl(2)];
    expect(one).toBeGreaterThan(0);
    // the student is the base here, so λ = 2 doubles the log-ratio it is pulled along: a larger KL to the teacher
    expect(two).toBeGreaterThan(one);
    await expect(
      trainStep(
        microModel(3, 4),
        new Adam({ lr: 0 }),
        samples,
        { opdEstimator: "full", opdExtrapolation: 2 },
        {
          teacherModel: microModel(5, 4),
        },
      ),
    ).rejects.toThrow(/opdExtrapolation/);
  });
});
