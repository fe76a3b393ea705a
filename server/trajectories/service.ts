// Read side of recorded conversations (sessions, turns, the conversation view) and human labels.
// Compact storage is reassembled here; lists are keyset-paginated raw SQL (see query.ts).
import type { z } from "zod";
import { db } from "../platform/db/client";
import { Prisma } from "../platform/db/generated/client";
import { assertExperimentAccess, type Principal } from "../access/principal";

import { reassembleMessages } from "../recording/reassemble";
import { authorizeRow, scopeExperiment } from "../access/scope";
import { appError } from "../platform/errors";
import { effectiveLabelsForTurns } from "../labels/effective";
import { decodeCursor, keysetPage } from "./cursor";
import { opdHeatmap } from "./heatmap";
import { searchHits } from "./searchHits";
import { assertMayRelabel, RELABEL_ACTION, writeReviewerLabel } from "../labels/reviewerLabels";
import { listOrder, sqlTime, TURN_COLUMNS, TURN_FROM, turnWhere, type TurnRow } from "./query";
import type {
  AuditListInput,
  ConversationInput,
  LabelCreateInput,
  LabelListInput,
  SessionListInput,
  TurnFilter,
  TurnListInput,
} from "./schemas";

function page<T extends { id: string }>(rows: T[], limit: number) {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? items[items.length - 1]!.id : null };
}

export async function listSessions(p: Principal, input: z.output<typeof SessionListInput>) {
  const experimentId = scopeExperiment(p, input.experimentId);
  const k = input.cursor ? decodeCursor(input.cursor) : null;
  const rows = await db().agentSession.findMany({
    where: {
      experimentId,
      externalId: input.externalId,
      simulated: input.simulated,
      done: input.done,
      lastTurnAt: input.from || input.to ? { gte: input.from, lt: input.to } : undefined,
      ...(k ? { OR: [{ lastTurnAt: { lt: k.at } }, { lastTurnAt: k.at, id: { lt: k.id } }] } : {}),
    },
    orderBy: [{ lastTurnAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    // The same client session id recurs across experiments (every demo experiment has a "sim-leo-…").
    include: { experiment: { select: { name: true, slug: true } } },
  });
  return keysetPage(rows, input.limit, (r) => ({ at: r.lastTurnAt, id: r.id }));
}

const TURN_SUMMARY = {
  id: true,
  sessionId: true,
  experimentId: true,
  runId: true,
  index: true,
  turnType: true,
  typeSource: true,
  status: true,
  simulated: true,
  content: true,
  finishReason: true,
  policyVersion: true,
  latencyMs: true,
  ttftMs: true,
  promptTokens: true,
  completionTokens: true,
  nextStateRole: true,
  nextStateAt: true,
  createdAt: true,
  error: true,
  endUserId: true,
  agentId: true,
  adapterId: true,
} satisfies Prisma.TurnSelect;

/**
 * A session by our id or by the client's session id (as `/turns?sessionId=` accepts). A client id is unique
 * within an experiment only: when several of the caller's experiments hold it, `experimentId` picks one.
 */
export async function getSession(p: Principal, id: string, experimentId?: string) {
  const include = {
    experiment: { select: { name: true, slug: true } },
    turns: { orderBy: { index: "asc" }, select: TURN_SUMMARY, take: 2000 },
  } satisfies Prisma.AgentSessionInclude;
  const own = await db().agentSession.findUnique({ where: { id }, include });
  if (own) return authorizeRow(p, "Session", id, own, (r) => r.experimentId);
  const scope = scopeExperiment(p, experimentId);
  const byClient = await db().agentSession.findMany({
    where: { externalId: id, ...(scope ? { experimentId: scope } : {}) },
    include,
    take: 10,
  });
  if (byClient.length > 1) {
    throw appError(
      "ambiguous_session",
      `Client session id '${id}' is used in ${byClient.length} experiments (${byClient.map((s) => s.experiment.slug).join(", ")}): add ?experimentId= to choose one`,
    );
  }
  return authorizeRow(p, "Session", id, byClient[0] ?? null, (r) => r.experimentId);
}

/** Keyset-paginated turns with their latest judgment, vote agreement and labels. */
export async function listTurns(p: Principal, input: z.output<typeof TurnListInput>) {
  const filter: TurnFilter = { ...input, experimentId: scopeExperiment(p, input.experimentId) };
  const { order, after } = listOrder(!!input.q, input.cursor ? decodeCursor(input.cursor) : null);
  const rows = await db().$queryRaw<TurnRow[]>`
    SELECT ${TURN_COLUMNS} FROM ${TURN_FROM}
    WHERE ${turnWhere(filter)} ${after}
    ORDER BY ${order}
    LIMIT ${input.limit + 1}`;
  const page = keysetPage(rows, input.limit, (r) => ({ at: r.createdAt, id: r.id }));
  const hits = input.q
    ? await searchHits(
        page.items.map((r) => r.id),
        input.q,
      )
    : null;
  return { ...page, items: page.items.map((r) => ({ ...r, hits: hits?.get(r.id) ?? [] })) };
}

/** The experiment's serving version now: the active one, else the newest. */
async function currentPolicyVersion(experimentId: string): Promise<number | null> {
  const v =
    (await db().policyVersion.findFirst({
      where: { experimentId, status: "ACTIVE" },
      orderBy: { version: "desc" },
      select: { version: true },
    })) ??
    (await db().policyVersion.findFirst({
      where: { experimentId },
      orderBy: { version: "desc" },
      select: { version: true },
    }));
  return v?.version ?? null;
}

const JUDGMENT_INCLUDE = {
  votes: { orderBy: [{ kind: "asc" }, { index: "asc" }] },
} satisfies Prisma.JudgmentInclude;

const LABEL_INCLUDE = {
  user: { select: { email: true } },
  apiKey: { select: { prefix: true } },
} satisfies Prisma.LabelInclude;

const SAMPLE_INCLUDE = {
  step: { select: { step: true, policyVersion: true, createdAt: true } },
} satisfies Prisma.SampleInclude;

function voteAgreement(votes: { kind: string; value: number | null }[], score: number) {
  const valid = votes.filter((v) => v.kind === "eval" && v.value !== null);
  return { valid: valid.length, agree: valid.filter((v) => v.value === score).length };
}

/** Everything the conversation view shows beside one assistant turn. */
async function annotate<
  T extends { id: string; experimentId: string; tokenIds: number[]; logprobs: number[]; policyVersion: number },
>(turns: T[]) {
  const ids = turns.map((t) => t.id);
  const [judgments, labels, samples, training] = await Promise.all([
    db().judgment.findMany({
      where: { turnId: { in: ids } },
      include: JUDGMENT_INCLUDE,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    }),
    db().label.findMany({
      where: { turnId: { in: ids } },
      include: LABEL_INCLUDE,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    }),
    db().sample.findMany({ where: { turnId: { in: ids } }, include: SAMPLE_INCLUDE, orderBy: { createdAt: "desc" } }),
    effectiveLabelsForTurns(ids),
  ]);
  const current = turns.length ? await currentPolicyVersion(turns[0]!.experimentId) : null;
  return turns.map(({ tokenIds, logprobs, ...t }) => {
    const own = judgments.filter((j) => j.turnId === t.id);
    const latest = own[0] ?? null;
    return {
      ...t,
      responseTokens: tokenIds.length,
      staleness: current === null ? null : Math.max(0, current - t.policyVersion),
      currentPolicyVersion: current,
      judgment: latest && { ...latest, agreement: voteAgreement(latest.votes, latest.score) },
      olderJudgments: own.slice(1),
      labels: labels.filter((l) => l.turnId === t.id),
      samples: samples.filter((s) => s.turnId === t.id),
      training: training.get(t.id) ?? null,
      opd: latest ? opdHeatmap(tokenIds, logprobs, latest.teacherLogprobs) : null,
    };
  });
}

const CONVERSATION_SELECT = {
  ...TURN_SUMMARY,
  messagesDelta: true,
  messagesOffset: true,
  toolCalls: true,
  reasoning: true,
  nextState: true,
  tokenIds: true,
  logprobs: true,
  upstreamModel: true,
  systemHash: true,
  toolsHash: true,
} satisfies Prisma.TurnSelect;

/** A page of a session's turns (one lane) with their delta messages and annotations. */
export async function getConversation(p: Principal, input: z.output<typeof ConversationInput>) {
  const session = authorizeRow(
    p,
    "Session",
    input.sessionId,
    await db().agentSession.findUnique({ where: { id: input.sessionId }, select: { id: true, experimentId: true } }),
    (r) => r.experimentId,
  );
  const rows = await db().turn.findMany({
    where: {
      sessionId: session.id,
      ...(input.lane === "ALL" ? {} : { turnType: input.lane }),
      index: input.cursor === undefined ? undefined : { gt: input.cursor },
    },
    orderBy: { index: "asc" },
    take: input.limit + 1,
    select: CONVERSATION_SELECT,
  });
  const items = rows.slice(0, input.limit);
  const firstPage = input.cursor === undefined;
  const first = items[0];
  const [system, tools] = await Promise.all([
    firstPage && first?.systemHash
      ? db()
          .blob.findUnique({ where: { hash: first.systemHash } })
          .then((b) => b?.content ?? null)
      : null,
    firstPage && first?.toolsHash
      ? db()
          .blob.findUnique({ where: { hash: first.toolsHash } })
          .then((b) => b?.content ?? null)
      : null,
  ]);
  return {
    system,
    tools,
    turns: await annotate(items),
    nextCursor: rows.length > input.limit ? items[items.length - 1]!.index : null,
  };
}

export async function getTurn(p: Principal, id: string) {
  const t = authorizeRow(
    p,
    "Turn",
    id,
    await db().turn.findUnique({
      where: { id },
      include: {
        session: { select: { externalId: true, done: true } },
        experiment: { select: { name: true, slug: true, config: true } },
      },
    }),
    (r) => r.experimentId,
  );
  const [annotated, messages, tools, auditEntries] = await Promise.all([
    annotate([t]),
    reassembleMessages(t),
    t.toolsHash
      ? db()
          .blob.findUnique({ where: { hash: t.toolsHash } })
          .then((b) => b?.content ?? null)
      : null,
    turnAudit(t.id),
  ]);
  const { experiment, ...a } = annotated[0]!;
  return {
    ...a,
    experiment: { name: experiment.name, slug: experiment.slug },
    messages,
    tools,
    audit: auditEntries,
    method: (experiment.config as { method?: string }).method ?? null,
  };
}

async function turnAudit(turnId: string) {
  const rows = await db().auditLog.findMany({
    where: { resourceType: "turn", resourceId: turnId },
    include: { actor: { select: { email: true } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 100,
  });
  return rows.map((r) => ({
    id: r.id,
    action: r.action,
    actor: r.actor?.email ?? null,
    actorKeyId: r.actorKeyId,
    before: r.before,
    after: r.after,
    createdAt: r.createdAt,
  }));
}

export async function createLabel(p: Principal, input: z.output<typeof LabelCreateInput>) {
  const { label } = await db().$transaction(async (tx) => {
    await assertMayRelabel(tx, p, input.turnId);
    return writeReviewerLabel(tx, p, input, { via: "relabel" });
  });
  return label;
}

export async function listLabels(p: Principal, input: z.output<typeof LabelListInput>) {
  const experimentId = scopeExperiment(p, input.experimentId);
  const rows = await db().label.findMany({
    where: { turnId: input.turnId, ...(experimentId ? { turn: { experimentId } } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
  });
  return page(rows, input.limit);
}

/** Audit entries about turns (relabels), newest first; readers see them, as they see the labels. */
export async function listTurnAudit(p: Principal, input: z.output<typeof AuditListInput>) {
  const experimentId = scopeExperiment(p, input.experimentId);
  if (input.turnId) {
    const turn = await db().turn.findUnique({ where: { id: input.turnId }, select: { experimentId: true } });
    if (turn) assertExperimentAccess(p, turn.experimentId);
  }
  const turnIds =
    experimentId && !input.turnId
      ? Prisma.sql`AND a."resourceId" IN (SELECT id FROM turns WHERE "experimentId" = ${experimentId})`
      : Prisma.empty;
  const k = input.cursor
    ? await db().auditLog.findUnique({ where: { id: input.cursor }, select: { createdAt: true, id: true } })
    : null;
  const rows = await db().$queryRaw<
    {
      id: string;
      action: string;
      resourceId: string;
      before: unknown;
      after: unknown;
      createdAt: Date;
      actor: string | null;
      actorKeyId: string | null;
      turnIndex: number | null;
      experimentId: string | null;
      experimentName: string | null;
    }[]
  >`
    SELECT a.id, a.action, a."resourceId", a.before, a.after, a."createdAt", u.email AS actor, a."actorKeyId",
           t.index AS "turnIndex", e.id AS "experimentId", e.name AS "experimentName"
    FROM audit_logs a LEFT JOIN users u ON u.id = a."actorUserId"
      LEFT JOIN turns t ON t.id = a."resourceId" LEFT JOIN experiments e ON e.id = t."experimentId"
    WHERE a."resourceType" = 'turn' ${input.turnId ? Prisma.sql`AND a."resourceId" = ${input.turnId}` : Prisma.empty}
      AND a.action = ${input.action ?? RELABEL_ACTION} ${turnIds}
      ${k ? Prisma.sql`AND (a."createdAt", a.id) < (${sqlTime(k.createdAt)}, ${k.id})` : Prisma.empty}
    ORDER BY a."createdAt" DESC, a.id DESC LIMIT ${input.limit + 1}`;
  return page(rows, input.limit);
}
