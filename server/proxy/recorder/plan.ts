// What one batch writes, decided without Postgres: which sessions to resolve, each turn's index, which next
// states link to a named turn and which to "the latest turn of the session", which finished turns to hand the
// judge, how far each session moved, and which next states and labels must wait for a turn not yet stored.
// apply.ts runs the plan inside one transaction; writer.ts queues the batches.
import type { LabelEvent, LinkEvent, TurnEvent } from "./events";
import type { NewSession, SessionRow } from "./sql";

/** The writer's view of a session: its row, the index its next turn takes, whether its last turn ended it. */
export interface SessionInfo {
  rowId: string;
  nextIndex: number;
  done: boolean;
}

export const sessionKey = (experimentId: string, externalId: string) => `${experimentId}\u0000${externalId}`;

/**
 * Rows are locked in one order (sorted) by every replica's writer, so two writers touching the same sessions
 * wait for each other instead of deadlocking (a deadlock costs deadlock_timeout, 1 s).
 */
export const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * How long a next state (in pending_next_states) or a label (in the writer) waits for its turn to reach Postgres
 * from another replica's writer, or from the journal of a replica that died, once it restarts.
 */
export const LINK_WAIT_MS = 3600_000;

/**
 * The sessions of `turns`: a copy of those the writer knows (`staged`, moved on by planTurns) and those to
 * resolve in Postgres (`missing`, in lock order; `newId` names the row should it not exist yet).
 */
export function stageSessions(
  turns: readonly TurnEvent[],
  known: ReadonlyMap<string, SessionInfo>,
  newId: () => string,
): { staged: Map<string, SessionInfo>; missing: NewSession[] } {
  const staged = new Map<string, SessionInfo>();
  const missing = new Map<string, NewSession>();
  for (const t of turns) {
    const key = sessionKey(t.experimentId, t.session.externalId);
    const cached = known.get(key);
    if (cached) staged.set(key, { ...cached });
    else if (!missing.has(key))
      missing.set(key, {
        id: newId(),
        experimentId: t.experimentId,
        externalId: t.session.externalId,
        idSource: t.session.idSource,
        at: t.createdAt,
        persona: t.persona ?? null,
      });
  }
  const ordered = [...missing.values()].sort((a, b) =>
    byKey(sessionKey(a.experimentId, a.externalId), sessionKey(b.experimentId, b.externalId)),
  );
  return { staged, missing: ordered };
}

/** Resolved session rows join the staged ones: their next turn follows the highest index stored. */
export function stageResolved(staged: Map<string, SessionInfo>, rows: readonly SessionRow[]): void {
  for (const row of rows)
    staged.set(sessionKey(row.experimentId, row.externalId), {
      rowId: row.id,
      nextIndex: row.maxIndex + 1,
      done: row.done,
    });
}

export type PlannedLink = NonNullable<TurnEvent["link"]> & { experimentId: string; until?: number };

export interface TurnPlan {
  rows: { e: TurnEvent; sessionId: string; index: number }[];
  /** Next states whose turn is "the latest main turn of the session before `index`" (the process restarted). */
  lookups: { sessionId: string; index: number; link: NonNullable<TurnEvent["link"]> }[];
  /** Next states onto a named turn: the batch's own turns' and the link events'. */
  links: PlannedLink[];
  /** Turns a session end made judgeable. */
  finals: string[];
  /** Each session the batch moved, by row id: its newest turn's time, whether it ended, turns added (0 here). */
  touched: Map<string, { id: string; last: number; done: boolean; added: number }>;
  /** Turns that had an index from the shared order and were appended instead (`reindex`). */
  reindexed: number;
}

/**
 * Each new turn's index (the shared order's, or the session's next one; always the next one with `reindex`,
 * after an index conflict), its links and its session's progress. Moves the `staged` sessions on.
 */
export function planTurns(
  turns: readonly TurnEvent[],
  staged: Map<string, SessionInfo>,
  linkEvents: readonly LinkEvent[],
  reindex: boolean,
): TurnPlan {
  const plan: TurnPlan = { rows: [], lookups: [], links: [], finals: [], touched: new Map(), reindexed: 0 };
  for (const t of turns) {
    const s = staged.get(sessionKey(t.experimentId, t.session.externalId))!;
    const index = t.index != null && !reindex ? t.index : s.nextIndex;
    if (reindex && t.index != null) plan.reindexed++;
    s.nextIndex = Math.max(s.nextIndex, index + 1);
    plan.rows.push({ e: t, sessionId: s.rowId, index });
    if (t.link) {
      // A session that had ended starts a new episode: its last turn keeps "no next state".
      if (t.link.target !== "lookup") plan.links.push({ ...t.link, experimentId: t.experimentId });
      else if (!s.done) plan.lookups.push({ sessionId: s.rowId, index, link: t.link });
    }
    s.done = t.done;
    if (t.finalTurnId) plan.finals.push(t.finalTurnId);
    const prev = plan.touched.get(s.rowId);
    plan.touched.set(s.rowId, { id: s.rowId, last: Math.max(prev?.last ?? 0, t.createdAt), done: t.done, added: 0 });
  }
  plan.links.push(...linkEvents);
  return plan;
}

/** Next states whose turn is not stored yet (`absent`): they wait for it until their deadline. */
export function waitingLinks(links: readonly PlannedLink[], absent: ReadonlySet<string>, now: number): LinkEvent[] {
  return links
    .filter((l) => absent.has(l.target))
    .map((l): LinkEvent => ({
      t: "link",
      experimentId: l.experimentId,
      target: l.target,
      nextState: l.nextState,
      role: l.role,
      at: l.at,
      until: l.until ?? now + LINK_WAIT_MS,
    }))
    .filter((l) => l.until > now);
}

/**
 * Feedback for a stored turn is written; for a turn another replica may not have committed yet it waits (as a
 * next state does); past the wait it is skipped (its turn never appeared).
 */
export function splitLabels(
  labels: readonly LabelEvent[],
  present: ReadonlySet<string>,
  now: number,
): { ready: LabelEvent[]; waiting: LabelEvent[]; expired: number } {
  const ready: LabelEvent[] = [];
  const waiting: LabelEvent[] = [];
  let expired = 0;
  for (const l of labels) {
    if (present.has(l.turnId)) ready.push(l);
    else if (l.createdAt + LINK_WAIT_MS > now) waiting.push(l);
    else expired++;
  }
  return { ready, waiting, expired };
}
