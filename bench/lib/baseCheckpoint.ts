// A tiny base policy checkpoint (version 0) for runs that must serve and train in well under a second on two
// cores: the trainer tests, the fault suite and the soak bench.
import path from "node:path";
import { initBackend } from "../../server/engine/backend";
import { saveCheckpoint } from "../../server/engine/checkpoint";
import { createModel, disposeModel, type ModelConfig } from "../../server/engine/model";
import { VOCAB_SIZE } from "../../server/engine/tokenizer";

/** Small enough to train in well under a second on a 2-core box. */
export const TINY: ModelConfig = { vocabSize: VOCAB_SIZE, ctx: 96, nLayer: 1, nEmbd: 32, nHead: 2 };

export async function makeBaseCheckpoint(dir: string, seed = 1, config: ModelConfig = TINY): Promise<string> {
  await initBackend();
  const model = createModel(config, seed);
  const target = path.join(dir, `base-${seed}`);
  await saveCheckpoint(target, model, { version: 0, step: 0 });
  disposeModel(model);
  return target;
}
