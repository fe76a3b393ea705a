// Judged turns of named end users, stored as the proxy stores them (X-User-Id on the turn, the served prompt's
// token count, the reply's token ids), for tests of per-user training, gating and deletion.
import { db } from "../../server/platform/db/client";
import { encode, END_ID, renderChat } from "../../server/engine/tokenizer";
import { makeJudgment } from "./judgments";
import { makeTurn } from "./turns";

export interface EndUserTurnSpec {
  experimentId: string;
  endUserId: string;
  prompt: string;
  reply: string;
  /** the judge's score (−1, 0 or 1) */
  reward: number;
  createdAt?: Date;
  /** the reply's token ids as generated (default: its bytes and the end-of-turn token) */
  tokenIds?: number[];
  /** the judge's accepted hint (from the user's correction) */
  hint?: string;
  /** the adapter version that served it (default: none, the base) */
  adapterId?: string;
}

export async function makeEndUserTurn(spec: EndUserTurnSpec): Promise<string> {
  const messages = [{ role: "user" as const, content: spec.prompt }];
  const tokenIds = spec.tokenIds ?? [...encode(spec.reply), END_ID];
  const id = await makeTurn({
    experimentId: spec.experimentId,
    request: messages,
    content: spec.reply,
    tokenIds,
    logprobs: tokenIds.map(() => -1),
    promptTokens: renderChat(messages, { addGenerationPrompt: true }).length,
    completionTokens: tokenIds.length,
    createdAt: spec.createdAt,
  });
  await db().turn.update({ where: { id }, data: { endUserId: spec.endUserId, adapterId: spec.adapterId ?? null } });
  await makeJudgment(id, {
    judgeVersion: "test",
    model: "heuristic-rules-v1",
    promptVersion: "p",
    score: spec.reward,
    ...(spec.hint ? { hint: spec.hint, hintAccepted: true } : {}),
  });
  return id;
}
