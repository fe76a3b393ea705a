// Automatic rollback on live judged reward: it fires on a scripted drop larger than the margin (audited,
// announced on the policy-version channel), and not on a drop within the margin or before both versions
// have served the minimum number of judged turns.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { initBackend } from "../../../server/engine/backend";
import { createModel, disposeModel } from "../../../server/engine/model";
import { VOCAB_SIZE } from "../../../server/engine/tokenizer";
import { checkAutoRollback } from "../../../server/evaluation/gate";
import { checkpoint, collect, judgedTurn } from "./helpers";
import { isolateDataDir, isolateRedis } from "../../helpers/isolate";
import { makeExperiment } from "../../helpers/fixtures";
import { waitFor } from "../../helpers/waitFor";

isolateRedis("eval-rollback");

describe("automatic rollback", () => {
  let dir: string;
  beforeAll(async () => {
    await initBackend();
    dir = await isolateDataDir("rollback");
  });
  afterAll(() => db().$disconnect());

  it("rolls back on a drop beyond the margin, not on noise within it", async () => {
    const e = await makeExperiment({
      method: "grpo",
      serving: { autoRollback: { enabled: true, margin: 0.3, minTurns: 10 } },
    });
    const model = createModel({ vocabSize: VOCAB_SIZE, ctx: 32, nLayer: 1, nEmbd: 16, nHead: 2 }, 1);
    const p1 = await checkpoint(dir, "v1", model, 1);
    const p2 = await checkpoint(dir, "v2", model, 2);
    disposeModel(model);
    await db().policyVersion.create({
      data: { experimentId: e.id, version: 1, parentVersion: 0, status: "RETIRED", checkpointPath: p1 },
    });
    await db().policyVersion.create({
      data: { experimentId: e.id, version: 2, parentVersion: 1, status: "ACTIVE", checkpointPath: p2 },
    });
    const announced = await collect("policyVersion", e.id);
    const turns = async (version: number, scores: number[]) => {
      for (const s of scores) await judgedTurn(e.id, version, s);
    };
    const active = async () =>
      (await db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, status: "ACTIVE" } })).version;

    // v1: 8 × +1, 2 × −1 → 0.6 over 10 turns.
    await turns(1, [1, 1, 1, 1, 1, 1, 1, 1, -1, -1]);
    // v2 with 9 turns at −1: far worse, but below the minimum number of turns.
    await turns(2, Array(9).fill(-1));
    expect(await checkAutoRollback(e.id, e.config)).toMatchObject({
      rolledBack: false,
      reason: expect.stringMatching(/not enough judged turns/),
    });
    expect(await active()).toBe(2);

    // v2 at 30 turns (20 × +1, 10 × −1 → 0.333): a drop of 0.267, within the margin of 0.3.
    await db().turn.deleteMany({ where: { experimentId: e.id, policyVersion: 2 } });
    await turns(2, [...Array(20).fill(1), ...Array(10).fill(-1)]);
    const noise = await checkAutoRollback(e.id, e.config);
    expect(noise).toMatchObject({ rolledBack: false, reason: expect.stringMatching(/within margin 0\.300/) });
    expect(await active()).toBe(2);

    // A scripted drop: 20 more turns at −1 → v2 at (20 − 30)/50 = −0.2, a drop of 0.8.
    await turns(2, Array(20).fill(-1));
    const fired = await checkAutoRollback(e.id, e.config);
    expect(fired).toMatchObject({ rolledBack: true, reason: expect.stringMatching(/dropped 0\.800 > margin 0\.300/) });
    expect(await active()).toBe(1);
    expect((await db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, version: 2 } })).status).toBe(
      "ROLLED_BACK",
    );
    const entry = await db().auditLog.findFirstOrThrow({
      where: { resourceId: e.id, action: "policyVersion.autoRollback" },
    });
    expect(entry.before).toEqual({ activeVersion: 2 });
    expect(entry.after).toMatchObject({ activeVersion: 1 });
    await waitFor("the rollback's announcement", () => announced.seen.length > 0);
    await announced.stop();
    expect(announced.seen.map((m) => m.version)).toEqual([1]);

    // v1 is served again and has no parent to compare against beyond the base: nothing more fires.
    expect((await checkAutoRollback(e.id, e.config))?.rolledBack).toBe(false);
  }, 60_000);

  it("does nothing when disabled", async () => {
    const e = await makeExperiment({ method: "grpo" });
    expect(await checkAutoRollback(e.id, e.config)).toBeNull();
  });
});
