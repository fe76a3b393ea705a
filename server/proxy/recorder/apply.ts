// One batch of recording events in one transaction: plan.ts decides, this runs the statements (sql.ts) in
// order and says what the writer must remember once it committed. Rolls back and rethrows on any error; the
// writer (writer.ts) decides whether to retry, split the batch or set an event aside.
import { randomBytes } from "node:crypto";
import type pg from "pg";
import type { LabelEvent, LinkEvent, RecordEvent, TurnEvent } from "./events";
import { byKey, planTurns, splitLabels, stageResolved, stageSessions, waitingLinks, type SessionInfo } from "./plan";
import {
  existingTurns,
  insertBlobs,
  insertLabels,
  insertTurns,
  judgeableFinals,
  linkLatest,
  linkTurns,
  resolveSessions,
  storedRequestIds,
  updateSessions,
  type JudgeItem,
} from "./sql";

export interface AppliedBatch {
  /** The sessions as the batch left them (the writer's cache takes them). */
  staged: Map<string, SessionInfo>;
  /** Turns ready for the judge. */
  judge: JudgeItem[];
  /** Next states and labels whose turn is not stored yet: the writer retries them later. */
  deferred: (LinkEvent | LabelEvent)[];
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
  try {
    await client.query("BEGIN");
    await insertBlobs(
      client,
      all.flatMap((t) => t.blobs),
    );
    // A replay (journal after a crash, batch of unknown outcome) repeats turns already stored: they take no
    // index, and their links, "lookup" next states and session updates were applied with them — re-applying
    // a lookup would hand this turn's next state to a later turn of the session.
    const stored = await storedRequestIds(
      client,
      all.map((t) => t.requestId),
    );
    const turns = stored.size ? all.filter((t) => !stored.has(t.requestId)) : all;

    const { staged, missing } = stageSessions(turns, writer.sessions, () => `ses_${randomBytes(10).toString("hex")}`);
    stageResolved(staged, await resolveSessions(client, missing));
    const plan = planTurns(
      turns,
      staged,
      events.filter((e): e is LinkEvent => e.t === "link"),
      writer.reindex,
    );
    const inserted = await insertTurns(client, plan.rows);
    // A next state whose turn another replica has not written yet waits for it. Looked up before the
    // UPDATE: each statement sees what was committed when it started, so a turn seen here is seen there.
    const now = Date.now();
    const present = plan.links.length
      ? await existingTurns(
          client,
          plan.links.map((l) => l.target),
        )
      : new Set<string>();
    const judge: JudgeItem[] = [
      ...(await linkTurns(
        client,
        [...plan.links].sort((a, b) => byKey(a.target, b.target)),
      )),
    ];
    const waiting = waitingLinks(plan.links, present, now);
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
      deferred: [...waiting, ...split.waiting],
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
