// A promoted per-user adapter on an experiment's embedded base, stored as the trainer stores one: its B matrices
// filled (a fresh LoRA's B is zero, which would answer exactly like the base), so serving through it differs.
import * as tf from "@tensorflow/tfjs-core";
import { ExperimentConfigSchema } from "../../server/config/experimentConfig";
import { createAdapter, defaultTargets, serializeAdapter } from "../../server/engine/lora";
import { baseModel } from "../../server/personalization/train";
import { db } from "../../server/platform/db/client";

export async function storePromotedAdapter(experimentId: string, endUserId: string) {
  const e = await db().experiment.findUniqueOrThrow({ where: { id: experimentId } });
  const base = await baseModel(ExperimentConfigSchema.parse(e.config));
  const a = createAdapter(base.config, { rank: 2, alpha: 4, targets: defaultTargets(base.config) }, 3);
  for (const [n, p] of a.pairs) a.pairs.set(n, { A: p.A, B: tf.fill(p.B.shape, 0.3) as tf.Tensor2D });
  return db().userAdapter.create({
    data: {
      experimentId,
      endUserId,
      version: 1,
      rank: 2,
      alpha: 4,
      state: "PROMOTED",
      weights: Buffer.from(serializeAdapter(a)),
    },
  });
}
