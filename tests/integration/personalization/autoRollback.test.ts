// Per-user auto-rollback (server/personalization/autoRollback.ts) against real Postgres: each user's served adapter
// is compared on that user's live judged turns with the version it replaced (or the base), by the shared policy's
// rule (decideRollback: margin, minTurns each); a drop past the margin rolls that user back — the parent serves
// again, audited endUser.autoRollback with the reason — and nobody else; too few turns or a small drop change nothing.
import { describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { checkUserAutoRollbacks } from "../../../server/personalization/autoRollback";
import { makeEndUserTurn } from "../../helpers/endUserTurns";
import { makeExperiment, uniq } from "../../helpers/fixtures";

async function experiment(enabled: boolean) {
  return makeExperiment({
    personalization: "per-user",
    serving: { autoRollback: { enabled, margin: 0.3, minTurns: 3 } },
  });
}

async function adapter(experimentId: string, endUserId: string, version: number, state: string, parentId?: string) {
  const row = await db().userAdapter.create({
    data: {
      experimentId,
      endUserId,
      version,
      rank: 8,
      alpha: 16,
      state: state as "PROMOTED" | "SUPERSEDED",
      weights: Buffer.alloc(0),
      parentId: parentId ?? null,
    },
  });
  return row.id;
}

async function turns(experimentId: string, endUserId: string, adapterId: string | undefined, rewards: number[]) {
  for (const [i, reward] of rewards.entries())
    await makeEndUserTurn({ experimentId, endUserId, prompt: `q${i}`, reply: `a${i}`, reward, adapterId });
}

const states = async (experimentId: string, endUserId: string) =>
  (await db().userAdapter.findMany({ where: { experimentId, endUserId }, orderBy: { version: "asc" } })).map(
    (a) => a.state,
  );

describe("per-user auto-rollback", () => {
  it("rolls back only the user whose served version's live reward dropped past the margin", async () => {
    const e = await experiment(true);
    const [ann, ben, cal] = [uniq("ann"), uniq("ben"), uniq("cal")];
    // Ann: v1 approved on 3 turns, v2 (served) corrected on 3: a drop of 2 > 0.3.
    const annV1 = await adapter(e.id, ann, 1, "SUPERSEDED");
    const annV2 = await adapter(e.id, ann, 2, "PROMOTED", annV1);
    await turns(e.id, ann, annV1, [1, 1, 1]);
    await turns(e.id, ann, annV2, [-1, -1, -1]);
    // Ben: a first version against his base turns, within the margin (mean 0.67 vs 0.67).
    const benV1 = await adapter(e.id, ben, 1, "PROMOTED");
    await turns(e.id, ben, benV1, [1, 1, 0]);
    await turns(e.id, ben, undefined, [1, 0, 1]);
    // Cal: a first version far worse than his base turns, but only two of its own judged: not enough to decide.
    const calV1 = await adapter(e.id, cal, 1, "PROMOTED");
    await turns(e.id, cal, calV1, [-1, -1]);
    await turns(e.id, cal, undefined, [1, 1, 1]);

    const checks = await checkUserAutoRollbacks([e.id]);
    const by = Object.fromEntries(checks.map((c) => [c.endUserId, c]));
    expect(by[ann]).toMatchObject({ version: 2, rolledBack: true });
    expect(by[ann]!.reason).toMatch(/dropped 2\.0+ > margin 0\.30*/);
    expect(by[ben]).toMatchObject({ version: 1, rolledBack: false });
    expect(by[ben]!.reason).toMatch(/within margin/);
    expect(by[cal]).toMatchObject({ version: 1, rolledBack: false });
    expect(by[cal]!.reason).toMatch(/not enough judged turns/);
    expect(await states(e.id, ann)).toEqual(["PROMOTED", "ROLLED_BACK"]);
    expect(await states(e.id, ben)).toEqual(["PROMOTED"]);
    expect(await states(e.id, cal)).toEqual(["PROMOTED"]);
    const audit = await db().auditLog.findMany({ where: { action: "endUser.autoRollback", resourceId: annV2 } });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actorUserId).toBeNull();
    expect(JSON.stringify(audit[0]!.after)).toContain("dropped");

    // Cal's third judged turn on v1 decides it: rolled back to the base (no version served).
    await turns(e.id, cal, calV1, [-1]);
    const again = await checkUserAutoRollbacks([e.id]);
    expect(again.find((c) => c.endUserId === cal)).toMatchObject({ rolledBack: true });
    expect(await states(e.id, cal)).toEqual(["ROLLED_BACK"]);
    // Ann's restored v1 has no judged turns against the base yet: nothing more changes.
    expect(again.find((c) => c.endUserId === ann)).toMatchObject({ version: 1, rolledBack: false });
    expect(await states(e.id, ann)).toEqual(["PROMOTED", "ROLLED_BACK"]);
  });

  it("checks nothing in an experiment with auto-rollback off", async () => {
    const e = await experiment(false);
    const dee = uniq("dee");
    const v1 = await adapter(e.id, dee, 1, "SUPERSEDED");
    const v2 = await adapter(e.id, dee, 2, "PROMOTED", v1);
    await turns(e.id, dee, v1, [1, 1, 1]);
    await turns(e.id, dee, v2, [-1, -1, -1]);
    expect(await checkUserAutoRollbacks([e.id])).toEqual([]);
    expect(await states(e.id, dee)).toEqual(["SUPERSEDED", "PROMOTED"]);
  });
});
