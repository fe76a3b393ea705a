// Recorded conversations written straight with Prisma in the form the proxy stores them (system and tools
// as blobs, each turn's messages as a delta against its lane), for tests of what reads them (judge, trainer,
// lease API, dashboard) without running the proxy.
import { db, type Prisma } from "../../server/platform/db/client";
import { blobOf, type BlobRecord } from "../../server/recording/compact";
import { uniq } from "./fixtures";

/** Stores a system or tools blob (content-addressed, so storing it twice is a no-op) and returns its hash. */
export async function storeBlob(kind: BlobRecord["kind"], content: unknown): Promise<string> {
  const b = blobOf(kind, content);
  await db().blob.upsert({
    where: { hash: b.hash },
    create: { ...b, content: b.content as Prisma.InputJsonValue },
    update: {},
  });
  return b.hash;
}

export async function makeSession(
  experimentId: string,
  opts: { externalId?: string; done?: boolean; doneAt?: Date | null; turnCount?: number; simulated?: boolean } = {},
) {
  return db().agentSession.create({
    data: {
      experimentId,
      externalId: opts.externalId ?? uniq("sess"),
      done: opts.done,
      doneAt: opts.doneAt,
      turnCount: opts.turnCount,
      simulated: opts.simulated,
    },
  });
}

export type TurnSpec = {
  experimentId: string;
  /** Defaults to a session of its own (done, from `readyAt`, when `sessionDone`). */
  sessionId?: string;
  sessionDone?: boolean;
  runId?: string | null;
  index?: number;
  turnType?: "MAIN" | "SIDE";
  status?: "OK" | "FAILED";
  systemHash?: string | null;
  toolsHash?: string | null;
  /** The stored delta: at index 0 with no system blob, the whole request body. */
  request?: unknown[];
  messagesOffset?: number;
  content: string | null;
  toolCalls?: unknown[];
  finishReason?: string;
  tokenIds?: number[];
  logprobs?: number[];
  promptTokens?: number;
  completionTokens?: number;
  policyVersion?: number;
  /** The end user an identity key named (X-User-Id) */
  endUserId?: string | null;
  /** The next state; null = none arrived. */
  next?: { role: string; content: string } | null;
  /** When the next state (or the session's end) arrived; defaults to now. */
  readyAt?: Date;
  createdAt?: Date;
};

/** One recorded turn; returns its id. */
export async function makeTurn(spec: TurnSpec): Promise<string> {
  const readyAt = spec.readyAt ?? new Date();
  const sessionId =
    spec.sessionId ??
    (
      await makeSession(spec.experimentId, {
        done: spec.sessionDone ?? false,
        doneAt: spec.sessionDone ? readyAt : null,
      })
    ).id;
  const next = spec.next === undefined ? { role: "user", content: "thanks!" } : spec.next;
  const turn = await db().turn.create({
    data: {
      requestId: uniq("req"),
      experimentId: spec.experimentId,
      sessionId,
      runId: spec.runId,
      index: spec.index ?? 0,
      turnType: spec.turnType ?? "MAIN",
      status: spec.status ?? "OK",
      systemHash: spec.systemHash,
      toolsHash: spec.toolsHash,
      messagesOffset: spec.messagesOffset ?? 0,
      messagesDelta: (spec.request ?? [{ role: "user", content: "Tell me about Paris." }]) as Prisma.InputJsonValue,
      content: spec.content,
      toolCalls: spec.toolCalls as Prisma.InputJsonValue | undefined,
      finishReason: spec.finishReason,
      tokenIds: spec.tokenIds ?? [],
      logprobs: spec.logprobs,
      promptTokens: spec.promptTokens,
      completionTokens: spec.completionTokens,
      policyVersion: spec.policyVersion,
      endUserId: spec.endUserId,
      nextState: next ? (next as Prisma.InputJsonValue) : undefined,
      nextStateRole: next?.role ?? null,
      nextStateAt: next ? readyAt : null,
      createdAt: spec.createdAt,
    },
    select: { id: true },
  });
  return turn.id;
}
