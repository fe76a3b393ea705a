// A next state links its turn whichever of the two reaches Postgres first. With several replicas the turn that
// carries a next state (turn 2, "the user's next message") can commit before the turn it belongs to (turn 1): turn
// 1 is still in its replica's writer, or in the journal of a replica that was SIGKILLed and has not restarted yet.
// These tests order the two commits by hand (no timing): turn 2 first, its replica then gone — killed right after
// its COMMIT, or scaled away — and turn 1 replayed later from the dead replica's journal by a restarted writer.
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { db } from "../../../server/platform/db/client";
import { env } from "../../../server/platform/env";
import { applyBatch } from "../../../server/proxy/recorder/apply";
import type { TurnEvent } from "../../../server/proxy/recorder/events";
import {
  insertTurns,
  lockNextStates,
  resolveSessions,
  takeNextStates,
  type JudgeItem,
} from "../../../server/proxy/recorder/sql";
import { RecordingWriter } from "../../../server/proxy/recorder/writer";
import { deleteExperiments, makeExperiment, uniq } from "../../helpers/fixtures";
import { turnEvent } from "../../helpers/turnEvents";
import { tempDataDir } from "./setup";

// Three: a batch held open, a batch waiting for it, and the look at what waits.
const pool = new pg.Pool({ connectionString: env().DATABASE_URL, max: 3 });
afterAll(async () => {
  await pool.end();
  await deleteExperiments();
});

/** A main turn of `session` as the proxy records it. */
const turn = (experimentId: string, session: string, index: number, link: TurnEvent["link"] = null): TurnEvent =>
  turnEvent(session, {
    id: uniq("turn"),
    requestId: uniq("req"),
    experimentId,
    index,
    typeSource: "header",
    messagesDelta: [{ role: "user", content: `step ${index}` }],
    content: `answer ${index}`,
    createdAt: Date.now(),
    link,
  });

const next = (target: string, content: string): TurnEvent["link"] => ({
  target,
  nextState: { role: "user", content },
  role: "user",
  at: Date.now(),
});

/**
 * The journal a writer leaves when its process dies: this pid with an instance no live journal has, which
 * `leftoverJournals` hands back for replay as it does a dead pid's.
 */
async function deadJournal(dir: string, instance: string, events: TurnEvent[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  const name = `proxy-journal-${process.pid}-${instance}-000000.jsonl`;
  await writeFile(path.join(dir, name), events.map((e) => `${JSON.stringify(e)}\n`).join(""));
}

/** A replica's writer (its own buffer directory); `judged` collects what it hands the judge. */
function writer(bufferDir: string, judged: JudgeItem[] = []): RecordingWriter {
  return new RecordingWriter({
    databaseUrl: env().DATABASE_URL,
    bufferDir,
    bufferMaxBytes: 16 * 1024 * 1024,
    lingerMs: 0,
    onJudge: (items) => judged.push(...items),
    log: () => {},
  });
}

/** What one batch transaction leaves in Postgres (the deferred events it returns die with the process). */
async function commitOnly(events: TurnEvent[]): Promise<void> {
  const client = await pool.connect();
  try {
    await applyBatch(client, events, { sessions: new Map(), reindex: false });
  } finally {
    client.release();
  }
}

const stored = (id: string) =>
  db().turn.findUniqueOrThrow({ where: { id }, select: { index: true, nextState: true, nextStateRole: true } });

describe("a next state and its turn, in either order", () => {
  it("links turn 1 when turn 2 committed first and its replica died before anything else: turn 1 replayed from the victim's journal", async () => {
    const ex = await makeExperiment();
    const session = uniq("order");
    const t1 = turn(ex.id, session, 0);
    const t2 = turn(ex.id, session, 1, next(t1.id, "step 1"));
    // Replica B: turn 2's batch commits while turn 1 is not in Postgres; B is killed before it journals or
    // settles anything more, so its journal still holds turn 2 (already stored: a replay skips it).
    await commitOnly([t2]);
    const dir = path.join(await tempDataDir(), "proxy-buffer");
    await deadJournal(dir, "bbbbbbbb", [t2]);
    // Replica A, SIGKILLed with turn 1 only journaled, restarts on its disk and replays it.
    await deadJournal(dir, "aaaaaaaa", [t1]);
    const judged: JudgeItem[] = [];
    const restarted = writer(dir, judged);
    await restarted.start();
    await restarted.drain();
    await restarted.close();

    expect(await stored(t1.id)).toEqual({
      index: 0,
      nextState: { role: "user", content: "step 1" },
      nextStateRole: "user",
    });
    expect(await stored(t2.id)).toMatchObject({ index: 1, nextState: null });
    expect(judged).toContainEqual({ turnId: t1.id, experimentId: ex.id });
  });

  it("links turn 1 when turn 2's replica was scaled away before turn 1 arrived, and a replay of either changes nothing", async () => {
    const ex = await makeExperiment();
    const session = uniq("order");
    const t1 = turn(ex.id, session, 0);
    const t2 = turn(ex.id, session, 1, next(t1.id, "step 1"));
    const b = writer(path.join(await tempDataDir(), "proxy-buffer"));
    await b.start();
    b.push(t2);
    // Written, then stopped for good (its journal is never replayed). The bound only keeps a writer that waits
    // for turn 1 itself from holding the test up; whether turn 2 is stored is checked, not assumed.
    await b.drain(5000).catch(() => {});
    await b.close(0);
    expect(await stored(t2.id)).toMatchObject({ index: 1 });
    const judged: JudgeItem[] = [];
    const a = writer(path.join(await tempDataDir(), "proxy-buffer"), judged);
    await a.start();
    a.push(t1);
    await a.drain();
    expect(await stored(t1.id)).toMatchObject({ nextState: { role: "user", content: "step 1" } });
    expect(judged).toEqual([{ turnId: t1.id, experimentId: ex.id }]);

    // Replays (a journal, a batch of unknown outcome) and a second next state for the same turn leave it as linked.
    const again = turn(ex.id, session, 2, next(t1.id, "not this one"));
    await commitOnly([t2, t1, again]);
    a.push(t1);
    a.push(t2);
    await a.drain();
    await a.close();
    expect(await stored(t1.id)).toMatchObject({ nextState: { role: "user", content: "step 1" } });
    expect(judged).toEqual([{ turnId: t1.id, experimentId: ex.id }]);
  });

  it("links turn 1 when turn 2's batch runs while turn 1's batch is inserting it and has not committed", async () => {
    const ex = await makeExperiment();
    const session = uniq("order");
    const t1 = turn(ex.id, session, 0);
    const t2 = turn(ex.id, session, 1, next(t1.id, "step 1"));
    // Turn 1's batch, held between its inserts (it found no next state waiting) and its COMMIT.
    const x = await pool.connect();
    try {
      await x.query("BEGIN");
      await lockNextStates(x, false);
      const [row] = await resolveSessions(x, [
        {
          id: uniq("ses"),
          experimentId: ex.id,
          externalId: session,
          idSource: "header",
          at: Date.now(),
          persona: null,
        },
      ]);
      await insertTurns(x, [{ e: t1, sessionId: row!.id, index: 0 }]);
      expect(await takeNextStates(x, [t1.id], Date.now())).toEqual([]);
      // Turn 2's batch cannot see turn 1 yet: it waits for turn 1's batch instead of leaving the next state
      // behind where that batch has already looked.
      const successor = commitOnly([t2]);
      for (let i = 0; ; i++) {
        const { rows } = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event = 'advisory' AND query LIKE '%proxy:next-states%'`,
        );
        if (rows[0]!.n > 0) break;
        if (i > 300) throw new Error("turn 2's batch never waited for turn 1's");
        await new Promise((r) => setTimeout(r, 100));
      }
      await x.query("COMMIT");
      await successor;
    } finally {
      x.release();
    }
    expect(await stored(t1.id)).toMatchObject({ nextState: { role: "user", content: "step 1" } });
    const { rows } = await pool.query(`SELECT 1 FROM pending_next_states WHERE "targetId" = $1`, [t1.id]);
    expect(rows).toEqual([]);
  });
});
