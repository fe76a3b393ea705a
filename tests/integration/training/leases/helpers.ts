// Fixtures for the batch lease tests: an external trainer's experiment config, and judged turns
// recorded in the proxy's compact form (system blob + per-turn message deltas), so the lease route's
// sample filler (server/training/samples.ts) turns them into Sample rows as it would in production.
import type { ExperimentConfigInput } from "../../../../server/config/experimentConfig";
import { makeKey } from "../../../helpers/fixtures";
import { makeJudgment } from "../../../helpers/judgments";
import { makeSession, makeTurn, storeBlob } from "../../../helpers/turns";

export const SLIME_EXPERIMENT: ExperimentConfigInput = {
  method: "grpo",
  policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30000/v1", model: "Qwen/Qwen3-4B" },
  trainer: { backend: "ray-slime", rayAddress: "http://127.0.0.1:8265" },
};

export const SYSTEM = { role: "system", content: "You are a helpful assistant." };
export const TOOLS = [
  { type: "function", function: { name: "search", parameters: { type: "object", properties: {} } } },
];

/**
 * A session of `n` main turns, each judged +1 (a grpo RL sample with reward 1). Turn i asks question i; its
 * delta is that question plus the previous answer, so reassembling turn i gives the whole conversation.
 */
export async function makeJudgedSession(
  experimentId: string,
  runId: string,
  n: number,
  opts: { score?: number; tokenIds?: (i: number) => number[] } = {},
) {
  const systemHash = await storeBlob("system", SYSTEM);
  const toolsHash = await storeBlob("tools", TOOLS);
  const session = await makeSession(experimentId, { turnCount: n });
  const turnIds: string[] = [];
  for (let i = 0; i < n; i++) {
    const delta =
      i === 0
        ? [{ role: "user", content: "question 0" }]
        : [
            { role: "assistant", content: `answer ${i - 1}` },
            { role: "user", content: `question ${i}` },
          ];
    const turnId = await makeTurn({
      experimentId,
      sessionId: session.id,
      runId,
      index: i,
      systemHash,
      toolsHash,
      messagesOffset: i === 0 ? 0 : 2 * i - 1,
      request: delta,
      content: `answer ${i}`,
      finishReason: "stop",
      tokenIds: opts.tokenIds?.(i) ?? [100 + i, 200 + i, 300 + i],
      logprobs: [-0.5, -0.25, -0.125],
      policyVersion: 0,
      next: { role: "user", content: `question ${i + 1}` },
    });
    await makeJudgment(turnId, {
      judgeVersion: "test-v1",
      judgeKind: "prm",
      model: "fake-prm",
      score: opts.score ?? 1,
      evalScore: opts.score ?? 1,
      dispatch: "rl",
    });
    turnIds.push(turnId);
  }
  return { sessionId: session.id, turnIds };
}

/** A write key bound to the experiment, as the supervisor issues to a trainer job. */
export const trainerKey = (experimentId: string) => makeKey(["write"], experimentId);
