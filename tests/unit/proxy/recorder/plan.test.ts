// The recorder's batch plan without Postgres: session staging in lock order, turn indexes (shared order,
// appended, re-indexed after a conflict), links versus lookups (none into an ended session), session
// progress, and which next states and labels wait for their turn.
import { describe, expect, it } from "vitest";
import type { LabelEvent, LinkEvent } from "../../../../server/proxy/recorder/events";
import {
  LINK_WAIT_MS,
  planTurns,
  sessionKey,
  splitLabels,
  stageResolved,
  stageSessions,
  waitingLinks,
  type SessionInfo,
} from "../../../../server/proxy/recorder/plan";
import { turnEvent } from "../../../helpers/turnEvents";

const turn = turnEvent;
const link = (target: string) => ({ target, nextState: { role: "user", content: "next" }, role: "user", at: 5 });

describe("recorder batch plan", () => {
  it("copies known sessions and lists the others once each, in lock order", () => {
    const known = new Map<string, SessionInfo>([
      [sessionKey("exp", "a"), { rowId: "ses-a", nextIndex: 3, done: false }],
    ]);
    let ids = 0;
    const { staged, missing } = stageSessions(
      [turn("c"), turn("a"), turn("b"), turn("c")],
      known,
      () => `new-${++ids}`,
    );
    expect(missing.map((m) => [m.externalId, m.id])).toEqual([
      ["b", "new-2"],
      ["c", "new-1"],
    ]);
    expect(staged.get(sessionKey("exp", "a"))).toEqual({ rowId: "ses-a", nextIndex: 3, done: false });
    staged.get(sessionKey("exp", "a"))!.nextIndex = 9;
    expect(known.get(sessionKey("exp", "a"))!.nextIndex).toBe(3); // the writer's cache moves only after COMMIT
  });

  it("indexes turns by the shared order, appends the rest, and appends everything after an index conflict", () => {
    const resolved = () => {
      const staged = new Map<string, SessionInfo>();
      stageResolved(staged, [{ id: "ses-a", experimentId: "exp", externalId: "a", maxIndex: 4, done: false }]);
      return staged;
    };
    const batch = [turn("a", { index: 7 }), turn("a"), turn("a", { index: 5 })];
    expect(planTurns(batch, resolved(), [], false).rows.map((r) => r.index)).toEqual([7, 8, 5]);
    const again = resolved();
    const reindexed = planTurns(batch, again, [], true);
    expect(reindexed.rows.map((r) => r.index)).toEqual([5, 6, 7]);
    expect(reindexed.reindexed).toBe(2);
    expect(again.get(sessionKey("exp", "a"))!.nextIndex).toBe(8);
  });

  it("links named turns, looks up the latest one after a restart, never into an ended session", () => {
    const staged = new Map<string, SessionInfo>([
      [sessionKey("exp", "open"), { rowId: "ses-open", nextIndex: 0, done: false }],
      [sessionKey("exp", "ended"), { rowId: "ses-ended", nextIndex: 2, done: true }],
    ]);
    const linkEvent: LinkEvent = { t: "link", experimentId: "exp", ...link("elsewhere"), until: 99 };
    const plan = planTurns(
      [
        turn("open", { link: link("lookup") }),
        turn("open", { link: link("turn-prev"), done: true, finalTurnId: "turn-last" }),
        turn("ended", { link: link("lookup"), createdAt: 50 }),
      ],
      staged,
      [linkEvent],
      false,
    );
    expect(plan.lookups).toEqual([{ sessionId: "ses-open", index: 0, link: link("lookup") }]);
    expect(plan.links.map((l) => l.target)).toEqual(["turn-prev", "elsewhere"]);
    expect(plan.finals).toEqual(["turn-last"]);
    expect(plan.touched.get("ses-open")).toMatchObject({ done: true, added: 0 });
    expect(plan.touched.get("ses-ended")).toMatchObject({ last: 50, done: false });
    // The ended session's new turn starts a new episode: the session is open again for the next lookup.
    expect(staged.get(sessionKey("exp", "ended"))!.done).toBe(false);
  });

  it("keeps next states and labels for unstored turns waiting until their deadline", () => {
    const now = 10 * LINK_WAIT_MS;
    const links = [
      { experimentId: "exp", ...link("stored") },
      { experimentId: "exp", ...link("fresh") },
      { experimentId: "exp", ...link("old"), until: now - 1 },
    ];
    expect(waitingLinks(links, new Set(["fresh", "old"]), now)).toEqual([
      { t: "link", experimentId: "exp", ...link("fresh"), until: now + LINK_WAIT_MS },
    ]);
    const label = (turnId: string, createdAt: number): LabelEvent => ({
      t: "label",
      id: `l-${turnId}`,
      turnId,
      value: 1,
      comment: null,
      apiKeyId: null,
      createdAt,
    });
    const split = splitLabels(
      [label("stored", 0), label("fresh", now), label("gone", now - LINK_WAIT_MS)],
      new Set(["stored"]),
      now,
    );
    expect(split.ready.map((l) => l.turnId)).toEqual(["stored"]);
    expect(split.waiting.map((l) => l.turnId)).toEqual(["fresh"]);
    expect(split.expired).toBe(1);
  });
});
