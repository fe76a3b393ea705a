// The writer's SQL, batched: one multi-row statement per kind of change. Column names are Prisma's
// (camelCase, quoted); timestamps are passed as UTC ISO strings into `timestamp(3)` columns, as Prisma does.
import type { PoolClient } from "pg";
import type { LabelEvent, TurnEvent } from "./events";

export const iso = (ms: number) => new Date(ms).toISOString();

/** Postgres cannot store U+0000 in text or jsonb; it is replaced so the turn is kept (the only lossy case). */
export function pgSafeJson(v: unknown): string {
  const json = JSON.stringify(v);
  return json.includes("\\u0000") ? json.replace(/\\u0000/g, "\\ufffd") : json;
}

export const pgSafeText = (s: string | null) => (s !== null && s.includes("\0") ? s.replace(/\0/g, "\ufffd") : s);

// Request content goes in as `json` (never via jsonb, which would reorder keys): see the exact_json migration.
export async function insertBlobs(c: PoolClient, blobs: TurnEvent["blobs"]): Promise<void> {
  if (!blobs.length) return;
  await c.query(
    `INSERT INTO blobs (hash, kind, content, bytes)
     SELECT v.hash, v.kind, v.content::json, v.bytes FROM unnest($1::text[], $2::text[], $3::text[], $4::int[]) AS v(hash, kind, content, bytes)
     ON CONFLICT (hash) DO NOTHING`,
    [
      blobs.map((b) => b.hash),
      blobs.map((b) => b.kind),
      blobs.map((b) => pgSafeJson(b.content)),
      blobs.map((b) => b.bytes),
    ],
  );
}

export interface SessionRow {
  id: string;
  experimentId: string;
  externalId: string;
  done: boolean;
  maxIndex: number;
}

export interface NewSession {
  id: string;
  experimentId: string;
  externalId: string;
  idSource: string;
  at: number;
  /** simulated traffic from this persona; null for real users */
  persona: string | null;
}

/** Creates missing sessions and returns every requested one with its highest turn index. */
export async function resolveSessions(c: PoolClient, wanted: NewSession[]): Promise<SessionRow[]> {
  if (!wanted.length) return [];
  await c.query(
    `INSERT INTO agent_sessions (id, "experimentId", "externalId", "idSource", "createdAt", "lastTurnAt", simulated, persona)
     SELECT v.id, v.e, v.x, v.src, v.at, v.at, v.persona IS NOT NULL, v.persona
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamp[], $6::text[]) AS v(id, e, x, src, at, persona)
     ON CONFLICT ("experimentId", "externalId") DO NOTHING`,
    [
      wanted.map((w) => w.id),
      wanted.map((w) => w.experimentId),
      wanted.map((w) => w.externalId),
      wanted.map((w) => w.idSource),
      wanted.map((w) => iso(w.at)),
      wanted.map((w) => w.persona),
    ],
  );
  const { rows } = await c.query<SessionRow>(
    `SELECT s.id, s."experimentId", s."externalId", s.done,
            COALESCE((SELECT max(t.index) FROM turns t WHERE t."sessionId" = s.id), -1)::int AS "maxIndex"
     FROM agent_sessions s JOIN unnest($1::text[], $2::text[]) AS k(e, x) ON s."experimentId" = k.e AND s."externalId" = k.x`,
    [wanted.map((w) => w.experimentId), wanted.map((w) => w.externalId)],
  );
  return rows;
}

const TURN_COLUMNS = [
  ["id", ""],
  ["requestId", ""],
  ["experimentId", ""],
  ["sessionId", ""],
  ["runId", ""],
  ["index", "::int"],
  ["turnType", '::"TurnType"'],
  ["typeSource", ""],
  ["status", '::"TurnStatus"'],
  ["systemHash", ""],
  ["toolsHash", ""],
  ["messagesOffset", "::int"],
  ["messagesDelta", "::json"],
  ["params", "::jsonb"],
  ["content", ""],
  ["toolCalls", "::json"],
  ["reasoning", ""],
  ["finishReason", ""],
  ["tokenIds", "::int[]"],
  ["logprobs", "::float8[]"],
  ["promptTokens", "::int"],
  ["completionTokens", "::int"],
  ["ttftMs", "::int"],
  ["latencyMs", "::int"],
  ["policyVersion", "::int"],
  ["upstreamModel", ""],
  ["error", ""],
  ["createdAt", "::timestamp"],
  ["simulated", "::boolean"],
  ["endUserId", ""],
  ["agentId", ""],
  ["adapterId", ""],
] as const;

/** Of these request ids, those whose turn is already stored. */
export async function storedRequestIds(c: PoolClient, requestIds: string[]): Promise<Set<string>> {
  if (!requestIds.length) return new Set();
  const { rows } = await c.query<{ requestId: string }>(
    `SELECT "requestId" FROM turns WHERE "requestId" = ANY($1::text[])`,
    [requestIds],
  );
  return new Set(rows.map((r) => r.requestId));
}

/** Of these turn ids, those stored. */
export async function existingTurns(c: PoolClient, ids: string[]): Promise<Set<string>> {
  const { rows } = await c.query<{ id: string }>(`SELECT id FROM turns WHERE id = ANY($1::text[])`, [ids]);
  return new Set(rows.map((r) => r.id));
}

/** Inserts turns (a requestId already stored is skipped); returns the session id of each row actually inserted. */
export async function insertTurns(
  c: PoolClient,
  turns: { e: TurnEvent; sessionId: string; index: number }[],
): Promise<string[]> {
  if (!turns.length) return [];
  const params: unknown[] = [];
  const rows = turns.map(({ e, sessionId, index }) => {
    const values: unknown[] = [
      e.id,
      e.requestId,
      e.experimentId,
      sessionId,
      e.runId,
      index,
      e.turnType,
      e.typeSource,
      e.status,
      e.systemHash,
      e.toolsHash,
      e.messagesOffset,
      pgSafeJson(e.messagesDelta),
      pgSafeJson(e.params),
      pgSafeText(e.content),
      e.toolCalls === null ? null : pgSafeJson(e.toolCalls),
      pgSafeText(e.reasoning),
      e.finishReason,
      e.tokenIds,
      e.logprobs,
      e.promptTokens,
      e.completionTokens,
      e.ttftMs,
      e.latencyMs,
      e.policyVersion,
      e.upstreamModel,
      pgSafeText(e.error),
      iso(e.createdAt),
      e.simulated ?? false,
      e.endUserId ?? null,
      e.agentId ?? null,
      e.adapterId ?? null,
    ];
    const start = params.length;
    params.push(...values);
    return `(${TURN_COLUMNS.map(([, cast], i) => `$${start + i + 1}${cast}`).join(", ")})`;
  });
  const { rows: inserted } = await c.query<{ sessionId: string }>(
    `INSERT INTO turns (${TURN_COLUMNS.map(([n]) => `"${n}"`).join(", ")}) VALUES ${rows.join(", ")} ON CONFLICT ("requestId") DO NOTHING RETURNING "sessionId"`,
    params,
  );
  return inserted.map((r) => r.sessionId);
}

export interface JudgeItem {
  turnId: string;
  experimentId: string;
}

/** Next states for known previous turns; only a main, successful, not yet linked turn takes one. */
export async function linkTurns(
  c: PoolClient,
  links: { target: string; nextState: unknown; role: string; at: number }[],
): Promise<JudgeItem[]> {
  if (!links.length) return [];
  const { rows } = await c.query<{ id: string; experimentId: string }>(
    `UPDATE turns t SET "nextState" = v.ns::json, "nextStateRole" = v.role, "nextStateAt" = v.at
     FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamp[]) AS v(id, ns, role, at)
     WHERE t.id = v.id AND t."nextStateAt" IS NULL AND t."turnType" = 'MAIN' AND t.status = 'OK'
     RETURNING t.id, t."experimentId"`,
    [
      links.map((l) => l.target),
      links.map((l) => pgSafeJson(l.nextState)),
      links.map((l) => l.role),
      links.map((l) => iso(l.at)),
    ],
  );
  return rows.map((r) => ({ turnId: r.id, experimentId: r.experimentId }));
}

/**
 * Orders "a next state waits for its turn" against "a turn takes the next states waiting for it" across writers
 * (replicas). Every batch that inserts turns or links takes it shared (writers do not wait for each other); a batch
 * that must leave a next state waiting takes it exclusive, so every batch that could have inserted that turn has
 * committed before it looks again (and sees the turn), and every later one sees the waiting row. Taken before any
 * row lock of the transaction, so it cannot join a deadlock.
 */
export async function lockNextStates(c: PoolClient, exclusive: boolean): Promise<void> {
  await c.query(
    exclusive
      ? "SELECT pg_advisory_xact_lock(hashtext('proxy:next-states'))"
      : "SELECT pg_advisory_xact_lock_shared(hashtext('proxy:next-states'))",
  );
}

/**
 * Next states whose turn is not stored: kept in `pending_next_states` (the first one per turn, as a stored turn
 * takes only its first) until the turn arrives or `until` passes; expired ones are deleted on the way.
 */
export async function holdNextStates(
  c: PoolClient,
  links: { experimentId: string; target: string; nextState: unknown; role: string; at: number; until: number }[],
  now: number,
): Promise<void> {
  await c.query(`DELETE FROM pending_next_states WHERE until <= $1::timestamp`, [iso(now)]);
  if (!links.length) return;
  await c.query(
    `INSERT INTO pending_next_states ("targetId", "experimentId", "nextState", role, at, until)
     SELECT v.id, v.e, v.ns::json, v.role, v.at, v.until
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamp[], $6::timestamp[]) AS v(id, e, ns, role, at, until)
     ON CONFLICT ("targetId") DO NOTHING`,
    [
      links.map((l) => l.target),
      links.map((l) => l.experimentId),
      links.map((l) => pgSafeJson(l.nextState)),
      links.map((l) => l.role),
      links.map((l) => iso(l.at)),
      links.map((l) => iso(l.until)),
    ],
  );
}

/**
 * The next states waiting for these (just inserted) turns: each is applied on the same terms as `linkTurns` and
 * deleted either way; returns the turns it linked.
 */
export async function takeNextStates(c: PoolClient, turnIds: string[], now: number): Promise<JudgeItem[]> {
  if (!turnIds.length) return [];
  const { rows } = await c.query<{ id: string; experimentId: string }>(
    `WITH taken AS (DELETE FROM pending_next_states WHERE "targetId" = ANY($1::text[]) RETURNING *)
     UPDATE turns t SET "nextState" = v."nextState", "nextStateRole" = v.role, "nextStateAt" = v.at
     FROM taken v
     WHERE t.id = v."targetId" AND v.until > $2::timestamp
       AND t."nextStateAt" IS NULL AND t."turnType" = 'MAIN' AND t.status = 'OK'
     RETURNING t.id, t."experimentId"`,
    [turnIds, iso(now)],
  );
  return rows.map((r) => ({ turnId: r.id, experimentId: r.experimentId }));
}

/** A session this process had not seen: its latest unlinked main turn before `index` takes the next state. */
export async function linkLatest(
  c: PoolClient,
  sessionId: string,
  index: number,
  link: { nextState: unknown; role: string; at: number },
): Promise<JudgeItem[]> {
  const { rows } = await c.query<{ id: string; experimentId: string }>(
    `UPDATE turns t SET "nextState" = $3::json, "nextStateRole" = $4, "nextStateAt" = $5::timestamp
     WHERE t.id = (SELECT id FROM turns WHERE "sessionId" = $1 AND "turnType" = 'MAIN' AND status = 'OK' AND "nextStateAt" IS NULL AND index < $2
                   ORDER BY index DESC LIMIT 1)
     RETURNING t.id, t."experimentId"`,
    [sessionId, index, pgSafeJson(link.nextState), link.role, iso(link.at)],
  );
  return rows.map((r) => ({ turnId: r.id, experimentId: r.experimentId }));
}

/** `added` counts only rows this batch really inserted, so a replayed batch does not count twice. */
export async function updateSessions(
  c: PoolClient,
  updates: { id: string; last: number; done: boolean; added: number }[],
): Promise<void> {
  if (!updates.length) return;
  await c.query(
    `UPDATE agent_sessions s SET
       "lastTurnAt" = GREATEST(s."lastTurnAt", v.last),
       done = v.done,
       "doneAt" = CASE WHEN v.done THEN v.last ELSE NULL END,
       "turnCount" = s."turnCount" + v.added
     FROM unnest($1::text[], $2::timestamp[], $3::boolean[], $4::int[]) AS v(id, last, done, added)
     WHERE s.id = v.id`,
    [
      updates.map((u) => u.id),
      updates.map((u) => iso(u.last)),
      updates.map((u) => u.done),
      updates.map((u) => u.added),
    ],
  );
}

/** Feedback labels; a label whose turn does not exist is skipped (its count is returned). */
export async function insertLabels(c: PoolClient, labels: LabelEvent[]): Promise<number> {
  if (!labels.length) return 0;
  await c.query(
    `INSERT INTO labels (id, "turnId", source, value, comment, "apiKeyId", "createdAt")
     SELECT v.id, v.turn, 'USER'::"LabelSource", v.value, v.comment, (SELECT k.id FROM api_keys k WHERE k.id = v.key), v.at
     FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::timestamp[]) AS v(id, turn, value, comment, key, at)
     WHERE EXISTS (SELECT 1 FROM turns t WHERE t.id = v.turn)
     ON CONFLICT (id) DO NOTHING`,
    [
      labels.map((l) => l.id),
      labels.map((l) => l.turnId),
      labels.map((l) => l.value),
      labels.map((l) => pgSafeText(l.comment)),
      labels.map((l) => l.apiKeyId),
      labels.map((l) => iso(l.createdAt)),
    ],
  );
  const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM labels WHERE id = ANY($1::text[])`, [
    labels.map((l) => l.id),
  ]);
  return labels.length - (rows[0]?.n ?? 0);
}

/** Of the turns that ended their session, those to judge (main, successful, without a next state). */
export async function judgeableFinals(c: PoolClient, ids: string[]): Promise<JudgeItem[]> {
  if (!ids.length) return [];
  const { rows } = await c.query<{ id: string; experimentId: string }>(
    `SELECT id, "experimentId" FROM turns WHERE id = ANY($1::text[]) AND "turnType" = 'MAIN' AND status = 'OK' AND "nextStateAt" IS NULL`,
    [ids],
  );
  return rows.map((r) => ({ turnId: r.id, experimentId: r.experimentId }));
}
