// The one way tests build a judged turn: a judgment row straight through Prisma, so a test needs no judge
// worker. makeJudgment writes what it is given (unset fields take the columns' defaults: no votes, no hint,
// not dispatched, not excluded); seedJudgment writes what the heuristic judge would from its eval votes.
import { db } from "../../server/platform/db/client";
import { encode, END_ID } from "../../server/engine/tokenizer";
import { uniq } from "./fixtures";
import { makeTurn } from "./turns";

export interface JudgmentSpec {
  score: number;
  /** Eval votes, in order; null is an unparsable answer. */
  votes?: (number | null)[];
  evalScore?: number | null;
  hint?: string | null;
  hintAccepted?: boolean;
  teacherLogprobs?: number[];
  dispatch?: string | null;
  excluded?: boolean;
  excludeReason?: string | null;
  /** A fresh version when absent; pass the experiment's current one to keep a running judge worker away. */
  judgeVersion?: string;
  judgeKind?: string;
  model?: string;
  promptVersion?: string;
  createdAt?: Date;
}

export async function makeJudgment(turnId: string, j: JudgmentSpec) {
  return db().judgment.create({
    data: {
      turnId,
      judgeVersion: j.judgeVersion ?? uniq("jv"),
      judgeKind: j.judgeKind ?? "heuristic",
      model: j.model ?? "heuristic",
      promptVersion: j.promptVersion ?? "test",
      score: j.score,
      evalScore: j.evalScore ?? null,
      hint: j.hint ?? null,
      hintAccepted: j.hintAccepted ?? false,
      teacherLogprobs: j.teacherLogprobs ?? [],
      dispatch: j.dispatch ?? null,
      excluded: j.excluded ?? false,
      excludeReason: j.excludeReason ?? null,
      createdAt: j.createdAt,
      votes: {
        create: (j.votes ?? []).map((value, index) => ({
          kind: "eval",
          index,
          raw: value === null ? "garbage" : `Reasoning for vote ${index}… \\boxed{${value}}`,
          value,
          error: value === null ? "unparsable answer" : null,
        })),
      },
    },
  });
}

/**
 * As the heuristic judge writes it: evalScore the mean of the valid votes, an accepted hint when one is given,
 * dispatched to RL, unless the score is 0 (a tie): then not dispatched and excluded as zero_score.
 */
export async function seedJudgment(
  turnId: string,
  j: JudgmentSpec & { score: -1 | 0 | 1; votes: (number | null)[]; dispatch?: "RL" | "OPD" | "BOTH" | null },
) {
  const valid = j.votes.filter((v): v is number => v !== null);
  return makeJudgment(turnId, {
    ...j,
    evalScore: j.evalScore ?? valid.reduce((a, b) => a + b, 0) / Math.max(1, valid.length),
    hintAccepted: j.hintAccepted ?? !!j.hint,
    dispatch: j.dispatch === undefined ? (j.score === 0 ? null : "RL") : j.dispatch,
    excluded: j.excluded ?? j.score === 0,
    excludeReason: j.excludeReason ?? (j.score === 0 ? "zero_score" : null),
  });
}

/**
 * A main turn of a conversation that the user corrected ("no"), judged −1 by the heuristic judge with `hint` accepted;
 * its reply's tokens carry log-prob −1 (behaviour and teacher). `request` is the turn's stored delta (at index 0 the
 * whole request). Returns the turn's id.
 */
export async function makeCorrectedTurn(spec: {
  experimentId: string;
  sessionId: string;
  index: number;
  request: { role: string; content: string }[];
  reply: string;
  hint: string;
  endUserId?: string;
}): Promise<string> {
  const tokenIds = [...encode(spec.reply), END_ID];
  const id = await makeTurn({
    experimentId: spec.experimentId,
    sessionId: spec.sessionId,
    index: spec.index,
    messagesOffset: spec.index === 0 ? 0 : 2 * spec.index - 1,
    request: spec.request,
    content: spec.reply,
    finishReason: "stop",
    tokenIds,
    logprobs: tokenIds.map(() => -1),
    endUserId: spec.endUserId,
    next: { role: "user", content: "no" },
  });
  await makeJudgment(id, {
    judgeVersion: "test",
    model: "heuristic-rules-v1",
    promptVersion: "p",
    score: -1,
    hint: spec.hint,
    hintAccepted: true,
    teacherLogprobs: tokenIds.map(() => -1),
  });
  return id;
}
