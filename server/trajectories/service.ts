// Read side of recorded conversations, and human labels. Compact storage is reassembled here.
import type { z } from "zod";
import { db, type Prisma } from "../db/client";
import { audit } from "../audit/log";
import { assertCan, assertExperimentAccess, boundExperimentId, type Principal } from "../auth/principal";
import { forbidden, notFound } from "../errors";
import type { LabelCreateInput, LabelListInput, MetricsQueryInput, SessionListInput, TurnListInput } from "./schemas";

function scopeExperiment(p: Principal, experimentId: string | undefined): string | undefined {
  const bound = boundExperimentId(p);
  if (bound && experimentId && experimentId !== bound) throw forbidden("This API key is bound to a different experiment");
  return bound ?? experimentId;
}

function page<T extends { id: string }>(rows: T[], limit: number) {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
}

export async function listSessions(p: Principal, input: z.output<typeof SessionListInput>) {
  assertCan(p, "read");
  const experimentId = scopeExperiment(p, input.experimentId);
  const rows = await db().agentSession.findMany({
    where: { experimentId, externalId: input.externalId, simulated: input.simulated },
    orderBy: [{ lastTurnAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
  });
  return page(rows, input.limit);
}

const TURN_SUMMARY = {
  id: true, sessionId: true, experimentId: true, runId: true, index: true, turnType: true, typeSource: true, status: true,
  simulated: true, content: true, finishReason: true, policyVersion: true, latencyMs: true, ttftMs: true,
  promptTokens: true, completionTokens: true, nextStateRole: true, nextStateAt: true, createdAt: true, error: true,
} satisfies Prisma.TurnSelect;

export async function getSession(p: Principal, id: string) {
  assertCan(p, "read");
  const s = await db().agentSession.findUnique({ where: { id }, include: { turns: { orderBy: { index: "asc" }, select: TURN_SUMMARY } } });
  if (!s) throw notFound("Session", id);
  assertExperimentAccess(p, s.experimentId);
  return s;
}

export async function listTurns(p: Principal, input: z.output<typeof TurnListInput>) {
  assertCan(p, "read");
  const experimentId = scopeExperiment(p, input.experimentId);
  const rows = await db().turn.findMany({
    where: { experimentId, sessionId: input.sessionId, runId: input.runId, turnType: input.turnType, status: input.status, policyVersion: input.policyVersion },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
    select: TURN_SUMMARY,
  });
  return page(rows, input.limit);
}

/** Full request of a turn, reassembled from the content-addressed blobs and the per-turn deltas. */
export async function reassembleMessages(turn: { sessionId: string; index: number; systemHash: string | null }): Promise<unknown[]> {
  const [prior, system] = await Promise.all([
    db().turn.findMany({ where: { sessionId: turn.sessionId, index: { lte: turn.index } }, orderBy: { index: "asc" }, select: { messagesDelta: true, messagesOffset: true } }),
    turn.systemHash ? db().blob.findUnique({ where: { hash: turn.systemHash } }) : null,
  ]);
  const messages: unknown[] = system ? [system.content] : [];
  for (const t of prior) {
    messages.length = Math.min(messages.length, t.messagesOffset);
    messages.push(...(t.messagesDelta as unknown[]));
  }
  return messages;
}

export async function getTurn(p: Principal, id: string) {
  assertCan(p, "read");
  const t = await db().turn.findUnique({
    where: { id },
    include: {
      judgments: { include: { votes: { orderBy: [{ kind: "asc" }, { index: "asc" }] } }, orderBy: { createdAt: "desc" } },
      labels: { orderBy: { createdAt: "desc" } },
      samples: true,
    },
  });
  if (!t) throw notFound("Turn", id);
  assertExperimentAccess(p, t.experimentId);
  const [messages, tools] = await Promise.all([
    reassembleMessages(t),
    t.toolsHash ? db().blob.findUnique({ where: { hash: t.toolsHash } }).then((b) => b?.content ?? null) : null,
  ]);
  return { ...t, messages, tools };
}

export async function createLabel(p: Principal, input: z.output<typeof LabelCreateInput>) {
  assertCan(p, "review");
  return db().$transaction(async (tx) => {
    const turn = await tx.turn.findUnique({ where: { id: input.turnId }, select: { id: true, experimentId: true } });
    if (!turn) throw notFound("Turn", input.turnId);
    assertExperimentAccess(p, turn.experimentId);
    const previous = await tx.label.findFirst({ where: { turnId: turn.id, source: "REVIEWER" }, orderBy: { createdAt: "desc" } });
    const label = await tx.label.create({
      data: {
        turnId: turn.id,
        source: "REVIEWER",
        value: input.value,
        hint: input.hint,
        exclude: input.exclude,
        comment: input.comment,
        userId: p.kind === "user" ? p.userId : null,
        apiKeyId: p.kind === "apiKey" ? p.keyId : null,
      },
    });
    await audit(tx, p, "label.create", "turn", turn.id,
      previous ? { value: previous.value, hint: previous.hint, exclude: previous.exclude } : null,
      { value: label.value, hint: label.hint, exclude: label.exclude, labelId: label.id });
    return label;
  });
}

export async function listLabels(p: Principal, input: z.output<typeof LabelListInput>) {
  assertCan(p, "read");
  const experimentId = scopeExperiment(p, input.experimentId);
  const rows = await db().label.findMany({
    where: { turnId: input.turnId, ...(experimentId ? { turn: { experimentId } } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
  });
  return page(rows, input.limit);
}

export async function queryMetrics(p: Principal, input: z.output<typeof MetricsQueryInput>) {
  assertCan(p, "read");
  let experimentId = scopeExperiment(p, input.experimentId);
  if (input.runId) {
    const run = await db().run.findUnique({ where: { id: input.runId }, select: { experimentId: true } });
    if (!run) throw notFound("Run", input.runId);
    assertExperimentAccess(p, run.experimentId);
    experimentId = run.experimentId;
  }
  const rows = await db().metricPoint.findMany({
    where: { experimentId, runId: input.runId, name: input.names?.length ? { in: input.names } : undefined, ts: input.since ? { gt: input.since } : undefined },
    orderBy: { ts: "asc" },
    take: input.limit,
  });
  return { points: rows.map((r) => ({ name: r.name, runId: r.runId, step: r.step, value: r.value, ts: r.ts.toISOString() })) };
}
