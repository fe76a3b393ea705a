// The trajectory browser's SQL: one turn row joined to its session, its latest judgment with the eval-vote
// agreement, and its latest reviewer and user labels, filtered by any TurnFilter. Review queues reuse the
// same FROM and WHERE to pick their turns, so "what the browser shows" and "what a queue holds" agree.
import { Prisma } from "../platform/db/generated/client";
import type { TurnFilter } from "./schemas";

/**
 * Aliases: f the turn's facets (every filterable column, kept current by triggers; see the TurnFacet model),
 * t the turn, s its session, j its latest judgment and r its latest reviewer label (both for display only,
 * so they are computed for the rows shown, never for the rows scanned).
 */
export const TURN_FROM = Prisma.sql`
  turn_facets f
  JOIN turns t ON t.id = f."turnId"
  JOIN agent_sessions s ON s.id = f."sessionId"
  LEFT JOIN LATERAL (
    SELECT id, hint, dispatch, excluded, "excludeReason" FROM judgments
    WHERE "turnId" = f."turnId" ORDER BY "createdAt" DESC, id DESC LIMIT 1
  ) j ON true
  LEFT JOIN LATERAL (
    SELECT value, exclude FROM labels WHERE "turnId" = f."turnId" AND source = 'REVIEWER' ORDER BY "createdAt" DESC, id DESC LIMIT 1
  ) r ON true`;

/** TURN_FROM without the display-only joins: enough for turnWhere (it reads f and t only), e.g. to count. */
export const TURN_FILTER_FROM = Prisma.sql`turn_facets f JOIN turns t ON t.id = f."turnId"`;

/** Newest first; the facet indexes all end in createdAt, so each filter's index yields this order. */
export const TURN_ORDER = Prisma.sql`f."createdAt" DESC, f."turnId" DESC`;

/**
 * The same order on the turn's own columns (equal values), used with full-text search: the planner can then
 * either walk turns by time checking the tsvector (common words) or take the GIN matches and sort them
 * (rare words and phrases), where the facet order would force the walk.
 */
export const SEARCH_ORDER = Prisma.sql`t."createdAt" DESC, t.id DESC`;

/** ORDER BY and keyset condition for a list (keyset rows strictly after `after`). */
export function listOrder(
  search: boolean,
  after: { at: Date; id: string } | null,
): { order: Prisma.Sql; after: Prisma.Sql } {
  const [at, id] = search
    ? [Prisma.sql`t."createdAt"`, Prisma.sql`t.id`]
    : [Prisma.sql`f."createdAt"`, Prisma.sql`f."turnId"`];
  return {
    order: search ? SEARCH_ORDER : TURN_ORDER,
    after: after ? Prisma.sql`AND (${at}, ${id}) < (${sqlTime(after.at)}, ${after.id})` : Prisma.empty,
  };
}

/** Split eval votes, or user feedback that contradicts the judge. */
export const DISPUTED_SQL = Prisma.sql`f.disputed`;

/** The dispute's reason, for the review queue ("split_votes" wins when both hold). */
export const DISPUTE_REASON_SQL = Prisma.sql`CASE WHEN f.split THEN 'split_votes' WHEN f.disputed THEN 'user_disagrees' ELSE NULL END`;

export const TURN_COLUMNS = Prisma.sql`
  t.id, t."sessionId", s."externalId" AS "sessionExternalId", t."experimentId", t."runId", t.index, t."turnType", t.status,
  t.simulated, left(t.content, 240) AS preview, t."finishReason", t."policyVersion", t."latencyMs", t."completionTokens",
  t."nextStateRole", t."createdAt", left(t.error, 240) AS error,
  j.id AS "judgmentId", f.score, (j.hint IS NOT NULL) AS "hasHint", j.dispatch, j.excluded, j."excludeReason",
  f."validVotes" AS "votesValid", f."agreeVotes" AS "votesAgree", r.value AS "reviewerValue", r.exclude AS "reviewerExclude",
  f."userValue", f.disputed`;

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
  if (f.experimentId) c.push(Prisma.sql`f."experimentId" = ${f.experimentId}`);
  if (f.runId) c.push(Prisma.sql`f."runId" = ${f.runId}`);
  // Our id or the client's: resolved on agent_sessions first (both are indexed there).
  if (f.sessionId)
    c.push(
      Prisma.sql`f."sessionId" IN (SELECT id FROM agent_sessions WHERE id = ${f.sessionId} OR "externalId" = ${f.sessionId})`,
    );
  if (f.turnType) c.push(Prisma.sql`f."turnType" = ${f.turnType}::"TurnType"`);
  if (f.status) c.push(Prisma.sql`f.status = ${f.status}::"TurnStatus"`);
  if (f.score === "unjudged") c.push(Prisma.sql`NOT f.judged`);
  else if (f.score !== undefined) c.push(Prisma.sql`f.judged AND f.score = ${Number(f.score)}::int`);
  if (f.agreement === "unanimous") c.push(Prisma.sql`(f."validVotes" > 0 AND NOT f.split)`);
  if (f.agreement === "split") c.push(Prisma.sql`f.split`);
  if (f.relabeled !== undefined) c.push(Prisma.sql`f.relabeled = ${f.relabeled}::boolean`);
  if (f.disputed !== undefined) c.push(Prisma.sql`f.disputed = ${f.disputed}::boolean`);
  if (f.from) c.push(Prisma.sql`f."createdAt" >= ${sqlTime(f.from)}`);
  if (f.to) c.push(Prisma.sql`f."createdAt" < ${sqlTime(f.to)}`);
  if (f.policyVersion !== undefined) c.push(Prisma.sql`f."policyVersion" = ${f.policyVersion}::int`);
  if (f.endUserId) c.push(Prisma.sql`t."endUserId" = ${f.endUserId}`);
  if (f.q) {
    c.push(Prisma.sql`t.search @@ websearch_to_tsquery('english', ${f.q})`);
    // Search lists walk turns in their own order (SEARCH_ORDER): repeat the scope on t so its indexes apply.
    if (f.experimentId) c.push(Prisma.sql`t."experimentId" = ${f.experimentId}`);
    if (f.runId) c.push(Prisma.sql`t."runId" = ${f.runId}`);
  }
  return c.length ? Prisma.join(c, " AND ") : Prisma.sql`true`;
}
