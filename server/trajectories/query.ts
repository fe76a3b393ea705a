// The trajectory browser's SQL: one turn row joined to its session, its latest judgment with the eval-vote
// agreement, and its latest reviewer and user labels, filtered by any TurnFilter. Review queues reuse the
// same FROM and WHERE to pick their turns, so "what the browser shows" and "what a queue holds" agree.
import { Prisma } from "../db/generated/client";
import type { TurnFilter } from "./schemas";

/** Aliases: t turn, s session, j latest judgment, v its eval votes (valid / agreeing with the score), r reviewer label, u user label. */
export const TURN_FROM = Prisma.sql`
  turns t
  JOIN agent_sessions s ON s.id = t."sessionId"
  LEFT JOIN LATERAL (
    SELECT id, score, hint, dispatch, excluded, "excludeReason" FROM judgments
    WHERE "turnId" = t.id ORDER BY "createdAt" DESC, id DESC LIMIT 1
  ) j ON true
  LEFT JOIN LATERAL (
    SELECT count(value)::int AS valid, (count(*) FILTER (WHERE value = j.score))::int AS agree FROM judge_votes
    WHERE "judgmentId" = j.id AND kind = 'eval'
  ) v ON true
  LEFT JOIN LATERAL (
    SELECT value, exclude FROM labels WHERE "turnId" = t.id AND source = 'REVIEWER' ORDER BY "createdAt" DESC, id DESC LIMIT 1
  ) r ON true
  LEFT JOIN LATERAL (
    SELECT value FROM labels WHERE "turnId" = t.id AND source = 'USER' ORDER BY "createdAt" DESC, id DESC LIMIT 1
  ) u ON true`;

/** Split eval votes, or user feedback that contradicts the judge. */
export const DISPUTED_SQL = Prisma.sql`(coalesce(v.valid > v.agree, false) OR (u.value IS NOT NULL AND j.score IS NOT NULL AND u.value <> j.score))`;

/** The dispute's reason, for the review queue ("split_votes" wins when both hold). */
export const DISPUTE_REASON_SQL = Prisma.sql`CASE
  WHEN coalesce(v.valid > v.agree, false) THEN 'split_votes'
  WHEN u.value IS NOT NULL AND j.score IS NOT NULL AND u.value <> j.score THEN 'user_disagrees'
  ELSE NULL END`;

export const TURN_COLUMNS = Prisma.sql`
  t.id, t."sessionId", s."externalId" AS "sessionExternalId", t."experimentId", t."runId", t.index, t."turnType", t.status,
  t.simulated, left(t.content, 240) AS preview, t."finishReason", t."policyVersion", t."latencyMs", t."completionTokens",
  t."nextStateRole", t."createdAt", left(t.error, 240) AS error,
  j.id AS "judgmentId", j.score, (j.hint IS NOT NULL) AS "hasHint", j.dispatch, j.excluded, j."excludeReason",
  CASE WHEN j.id IS NULL THEN NULL ELSE v.valid END AS "votesValid", CASE WHEN j.id IS NULL THEN NULL ELSE v.agree END AS "votesAgree", r.value AS "reviewerValue", r.exclude AS "reviewerExclude", u.value AS "userValue",
  ${DISPUTED_SQL} AS disputed`;

export interface TurnRow {
  id: string;
  sessionId: string;
  sessionExternalId: string;
  experimentId: string;
  runId: string | null;
  index: number;
  turnType: "MAIN" | "SIDE";
  status: "OK" | "FAILED";
  simulated: boolean;
  preview: string | null;
  finishReason: string | null;
  policyVersion: number;
  latencyMs: number | null;
  completionTokens: number | null;
  nextStateRole: string | null;
  createdAt: Date;
  error: string | null;
  judgmentId: string | null;
  score: number | null;
  hasHint: boolean | null;
  dispatch: string | null;
  excluded: boolean | null;
  excludeReason: string | null;
  votesValid: number | null;
  votesAgree: number | null;
  reviewerValue: number | null;
  reviewerExclude: boolean | null;
  userValue: number | null;
  disputed: boolean;
}

/** Columns hold UTC wall time (timestamp without zone): bind as ISO text, whose "Z" Postgres then ignores. */
export function sqlTime(d: Date): Prisma.Sql {
  return Prisma.sql`${d.toISOString()}::timestamp`;
}

/** WHERE clause (never empty: "true" when nothing filters). The experiment scope must already be resolved. */
export function turnWhere(f: TurnFilter): Prisma.Sql {
  const c: Prisma.Sql[] = [];
  if (f.experimentId) c.push(Prisma.sql`t."experimentId" = ${f.experimentId}`);
  if (f.runId) c.push(Prisma.sql`t."runId" = ${f.runId}`);
  if (f.sessionId) c.push(Prisma.sql`(t."sessionId" = ${f.sessionId} OR s."externalId" = ${f.sessionId})`);
  if (f.turnType) c.push(Prisma.sql`t."turnType" = ${f.turnType}::"TurnType"`);
  if (f.status) c.push(Prisma.sql`t.status = ${f.status}::"TurnStatus"`);
  if (f.score === "unjudged") c.push(Prisma.sql`j.id IS NULL`);
  else if (f.score !== undefined) c.push(Prisma.sql`j.score = ${Number(f.score)}::int`);
  if (f.agreement === "unanimous") c.push(Prisma.sql`(v.valid > 0 AND v.agree = v.valid)`);
  if (f.agreement === "split") c.push(Prisma.sql`v.valid > v.agree`);
  if (f.relabeled === true) c.push(Prisma.sql`t.id IN (SELECT "turnId" FROM labels WHERE source = 'REVIEWER')`);
  if (f.relabeled === false) c.push(Prisma.sql`NOT EXISTS (SELECT 1 FROM labels l WHERE l."turnId" = t.id AND l.source = 'REVIEWER')`);
  if (f.disputed === true) c.push(DISPUTED_SQL);
  if (f.disputed === false) c.push(Prisma.sql`NOT ${DISPUTED_SQL}`);
  if (f.from) c.push(Prisma.sql`t."createdAt" >= ${sqlTime(f.from)}`);
  if (f.to) c.push(Prisma.sql`t."createdAt" < ${sqlTime(f.to)}`);
  if (f.policyVersion !== undefined) c.push(Prisma.sql`t."policyVersion" = ${f.policyVersion}::int`);
  if (f.q) c.push(Prisma.sql`t.search @@ websearch_to_tsquery('english', ${f.q})`);
  return c.length ? Prisma.join(c, " AND ") : Prisma.sql`true`;
}
