// One batch of recording events in one transaction: plan.ts decides, this runs the statements (sql.ts) in
// order and says what the writer must remember once it committed. Rolls back and rethrows on any error; the
// writer (writer.ts) decides whether to retry, split the batch or set an event aside.
import { randomBytes } from "node:crypto";
import type pg from "pg";
import type { LabelEvent, LinkEvent, RecordEvent, TurnEvent } from "./events";
import { byKey, planTurns, splitLabels, stageResolved, stageSessions, waitingLinks, type SessionInfo } from "./plan";
import {
  existingTurns,
  holdNextStates,
  insertBlobs,
  insertLabels,
  insertTurns,
  judgeableFinals,
  linkLatest,
  linkTurns,
  lockNextStates,
  resolveSessions,
  storedRequestIds,
  takeNextStates,
  updateSessions,
  type JudgeItem,
} from "./sql";

export interface AppliedBatch {
  /** The sessions as the batch left them (the writer's cache takes them). */
  staged: Map<string, SessionInfo>;
  /** Turns ready for the judge. */
  judge: JudgeItem[];
  /** Labels whose turn is not stored yet: the writer retries them later. */
  deferred: LabelEvent[];
  /** Next states left waiting for their turn in pending_next_states. */
  held: number;
  /** New turns written (replayed ones excluded). */
  turns: number;
  /** Labels written. */
  labels: number;
  /** Labels skipped: their turn does not exist (or they repeat a stored one). */
  skippedLabels: number;
  reindexed: number;
}

export async function applyBatch(
  client: pg.PoolClient,
  events: readonly RecordEvent[],
  writer: { sessions: ReadonlyMap<string, SessionInfo>; reindex: boolean },
): Promise<AppliedBatch> {
  const all = events.filter((e): e is TurnEvent => e.t === "turn");
  const labels = events.filter((e): e is LabelEvent => e.t === "label");
  const linkEvents = events.filter((e): e is LinkEvent => e.t === "link");
  try {
    await client.query("BEGIN");
    // A replay (journal after a crash, batch of unknown outcome) repeats turns already stored: they take no
    // index, and their links, "lookup" next states and session updates were applied with them — re-applying
    // a lookup would hand this turn's next state to a later turn of the session. A named next state whose turn
    // was missing was kept waiting in the same transaction (pending_next_states), so it is not lost either.
    const stored = await storedRequestIds(
      client,
      all.map((t) => t.requestId),
    );
    const turns = stored.size ? all.filter((t) => !stored.has(t.requestId)) : all;

    // Next states onto turns outside this batch that are not stored (yet): then this batch must leave them
    // waiting, under the exclusive lock (sql.ts, lockNextStates); otherwise the shared one will do.
    const now = Date.now();
    const own = new Set(turns.map((t) => t.id));
    const named = [
      ...turns.flatMap((t) => (t.link && t.link.target !== "lookup" ? [t.link.target] : [])),
      ...linkEvents.map((l) => l.target),
    ];
    const outside = [...new Set(named.filter((id) => !own.has(id)))];
    const seen = outside.length ? await existingTurns(client, outside) : new Set<string>();
    const missing = outside.filter((id) => !seen.has(id));
    if (turns.length || named.length) await lockNextStates(client, missing.length > 0);

    await insertBlobs(
      client,
      all.flatMap((t) => t.blobs),
    );
    const { staged, missing: newSessions } = stageSessions(
      turns,
      writer.sessions,
      () => `ses_${randomBytes(10).toString("hex")}`,
    );
    stageResolved(staged, await resolveSessions(client, newSessions));
    const plan = planTurns(turns, staged, linkEvents, writer.reindex);
    const inserted = await insertTurns(client, plan.rows);
    // Next states another replica's batch left waiting for these turns (it committed first); then this batch's.
    const judge: JudgeItem[] = await takeNextStates(
      client,
      plan.rows.map((r) => r.e.id),
      now,
    );
    judge.push(
      ...(await linkTurns(
        client,
        [...plan.links].sort((a, b) => byKey(a.target, b.target)),
      )),
    );
    // Under the exclusive lock every batch that could have inserted a missing turn has committed: a turn still
    // absent now is stored later by a batch that will see this one's waiting row.
    const absent = new Set(missing);
    if (missing.length) for (const id of await existingTurns(client, missing)) absent.delete(id);
    const held = absent.size ? waitingLinks(plan.links, absent, now) : [];
    if (held.length) await holdNextStates(client, held, now);
    for (const l of plan.lookups) judge.push(...(await linkLatest(client, l.sessionId, l.index, l.link)));
    for (const sessionId of inserted) plan.touched.get(sessionId)!.added++;
    await updateSessions(
      client,
      [...plan.touched.values()].sort((a, b) => byKey(a.id, b.id)),
    );
    const labelled = labels.length
      ? await existingTurns(
          client,
          labels.map((l) => l.turnId),
        )
      : new Set<string>();
    const split = splitLabels(labels, labelled, now);
    const skippedLabels = (await insertLabels(client, split.ready)) + split.expired;
    judge.push(...(await judgeableFinals(client, plan.finals)));
    await client.query("COMMIT");
    return {
      staged,
      judge,
      deferred: split.waiting,
      held: held.length,
      turns: turns.length,
      labels: labels.length - skippedLabels - split.waiting.length,
      skippedLabels,
      reindexed: plan.reindexed,
    };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  }
}
