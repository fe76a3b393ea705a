// Seeds recorded conversations the way the proxy, judge and trainer store them (compact deltas, blobs,
// judgments with votes, labels), straight through Prisma, so dashboard tests do not depend on those workers.
import { db } from "../../../server/platform/db/client";
import { makeSession, makeTurn, storeBlob } from "../../helpers/turns";

export interface TurnSpec {
  user: string;
  reply: string;
  /** Next state (the following user message); null = none arrived. */
  next?: string | null;
  turnType?: "MAIN" | "SIDE";
  status?: "OK" | "FAILED";
  policyVersion?: number;
  runId?: string | null;
  createdAt?: Date;
  tokenIds?: number[];
  logprobs?: number[];
}

/**
 * A session whose main lane holds the specs in order. Each turn's request is system + all earlier
 * user/assistant messages + its user message, stored as the proxy stores it: a system blob and deltas.
 */
export async function seedSession(
  experimentId: string,
  specs: TurnSpec[],
  opts: { externalId?: string; system?: string; simulated?: boolean } = {},
) {
  const systemHash = await storeBlob("system", {
    role: "system",
    content: opts.system ?? "You are a helpful assistant.",
  });
  const session = await makeSession(experimentId, {
    externalId: opts.externalId,
    simulated: opts.simulated ?? false,
    turnCount: specs.length,
  });
  const turns: { id: string }[] = [];
  let laneLength = { MAIN: 0, SIDE: 0 };
  let previousReply: Record<"MAIN" | "SIDE", string | null> = { MAIN: null, SIDE: null };
  for (const [index, spec] of specs.entries()) {
    const lane = spec.turnType ?? "MAIN";
    const delta = [
      ...(previousReply[lane] !== null ? [{ role: "assistant", content: previousReply[lane] }] : []),
      { role: "user", content: spec.user },
    ];
    const offset = laneLength[lane];
    laneLength = { ...laneLength, [lane]: offset + delta.length };
    previousReply = { ...previousReply, [lane]: spec.reply };
    const next = spec.next === undefined ? (specs[index + 1]?.user ?? null) : spec.next;
    const id = await makeTurn({
      experimentId,
      sessionId: session.id,
      runId: spec.runId ?? null,
      index,
      turnType: lane,
      status: spec.status ?? "OK",
      systemHash,
      messagesOffset: offset,
      request: delta,
      content: spec.reply,
      tokenIds: spec.tokenIds ?? [],
      logprobs: spec.logprobs ?? [],
      policyVersion: spec.policyVersion ?? 0,
      next: next === null ? null : { role: "user", content: next },
      createdAt: spec.createdAt,
    });
    turns.push({ id });
  }
  return { session, turns };
}

export async function seedUserFeedback(turnId: string, value: 1 | -1) {
  return db().label.create({ data: { turnId, source: "USER", value } });
}

// Old names, kept only while tests/browser/console.test.ts (being written in parallel) imports them; use
// makeExperiment and makeRun from tests/helpers/fixtures.
export { makeExperiment as seedExperiment, makeRun as seedRun } from "../../helpers/fixtures";
