// The tool-call demo learns in the real loop: GRPO groups of episodes through the recording proxy and the
// episode worker (calc answered in-process, the boxed answer scored), group advantages, the embedded trainer's
// steps served back by the proxy — starting from models/toolcall (the base fine-tuned on the demo's format:
// it calls calc now and then and guesses otherwise, scripts/pretrain-toolcall.ts). Held-out pass@1 after the
// rounds beats an lr-0 control run on the same rounds (same tasks, same serving, judging and stepping; no
// update) by a margin. Bigger runs, over seeds and 30 steps: bench/episodes.
import { afterAll, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { closeQueues } from "../../../server/platform/bus/queues";
import { runToolCallTraining, type ToolCallTrainingOptions } from "../../../bench/episodes/loop";
import { ADMIN } from "../../helpers/fixtures";
import { isolateDataDir, isolateRedis } from "../../helpers/isolate";

isolateRedis("env-learning");
const dataDir = await isolateDataDir("env-learning");
afterAll(async () => {
  await closeQueues();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const ROUNDS = 6;
/** The least rise of held-out pass@1 over the control's that counts as learning (see docs/environments.md). */
const MARGIN = 0.25;

const options = (lr: number): ToolCallTrainingOptions => ({
  checkpoint: "models/toolcall",
  lr,
  rounds: ROUNDS,
  tasksPerRound: 6,
  n: 4,
  batchSize: 16,
  evalN: 4,
  evalAfter: [0, ROUNDS],
  seed: 1,
  principal: ADMIN,
  log: (line) => console.log(`[lr ${lr}] ${line}`),
  timeoutMs: 900_000,
});

describe("the tool-call demo learns (episodes → verifier → embedded trainer)", () => {
  it("raises held-out pass@1 over an lr-0 control by a margin", async () => {
    const learned = await runToolCallTraining(options(5e-4));
    const control = await runToolCallTraining(options(0));
    const end = (r: typeof learned) => r.heldOut.find((p) => p.round === ROUNDS)!;
    // Both stepped (an lr-0 step still makes and serves a version): only the update differs.
    expect(end(learned).steps).toBeGreaterThan(0);
    expect(end(control).steps).toBeGreaterThan(0);
    expect(end(learned).passAt1 - end(control).passAt1).toBeGreaterThanOrEqual(MARGIN);
    expect(end(learned).passAt1 - learned.heldOut[0].passAt1).toBeGreaterThanOrEqual(MARGIN);
  }, 1_500_000);
});
