// Per-user adapters against real Postgres: a user's adapter trains on that user's samples only (isolation),
// the per-user gate promotes or rejects on the user's held-out turns, rollback walks the version chain, and
// deleting a user removes their adapters, turns and judgments, audited, and nothing of anyone else; the shared adapter
// for new users, where asked for, trains on everyone's turns beside them.
import { beforeAll, describe, expect, it } from "vitest";
import type { ExperimentConfigInput } from "../../../server/config/experimentConfig";
import { initBackend } from "../../../server/engine/backend";
import type { PolicyModel } from "../../../server/engine/model";
import { db } from "../../../server/platform/db/client";
import { isHeldOut, userSamples } from "../../../server/personalization/data";
import { EVERYONE } from "../../../server/config/experimentConfig";
import { deleteEndUser, listEndUsers, rollbackEndUser } from "../../../server/personalization/service";
import { perUserTick } from "../../../server/personalization/schedule";
import { baseModel, basePromptPool, trainUser } from "../../../server/personalization/train";
import { makeEndUserTurn } from "../../helpers/endUserTurns";
import { makeExperiment, makeUser, uniq } from "../../helpers/fixtures";
import type { Principal } from "../../../server/access/principal";

let base: PolicyModel;
let admin: Principal;
beforeAll(async () => {
  await initBackend();
  const u = await makeUser("ADMIN");
  admin = { kind: "user", userId: u.id, email: u.email, role: "ADMIN" };
});

async function perUserExperiment(
  perUser: NonNullable<ExperimentConfigInput["perUser"]>,
  serving?: ExperimentConfigInput["serving"],
) {
  const e = await makeExperiment({ personalization: "per-user", perUser, ...(serving ? { serving } : {}) });
  base ??= await baseModel(e.config);
  return e;
}

const adapters = (experimentId: string, endUserId: string) =>
  db().userAdapter.findMany({ where: { experimentId, endUserId }, orderBy: { version: "asc" } });

describe("isolation", () => {
  it("trains a user's adapter on that user's samples and hints only: more of another user's turns change nothing", async () => {
    // Every teacher reply is kept (−10), so each hinted turn of a user trains two demonstrations of their adapter.
    // Four style prompts, not the whole pool: enough to see whose hint they carry, and the test's four steps stay
    // well inside its time on a loaded machine (the whole pool took 47–60 s of its 60).
    const e = await perUserExperiment(
      {
        minSamples: 4,
        heldOutFraction: 0,
        lr: 0.5,
        advantages: "raw",
        hindsightSamples: 2,
        hindsightMinLogprob: -10,
        stylePrompts: 4,
      },
      { maxTokens: 24 },
    );
    const maya = uniq("maya");
    const leo = uniq("leo");
    const mayaTurns: string[] = [];
    for (let i = 0; i < 4; i++)
      mayaTurns.push(
        await makeEndUserTurn({
          experimentId: e.id,
          endUserId: maya,
          prompt: `Plan day ${i}`,
          reply: i === 0 ? "Monday: rest. Tuesday: work. Wednesday: errands." : "Rest.",
          reward: i === 0 ? -1 : 1,
          ...(i === 0 ? { hint: "The user wants shorter answers: two sentences at most." } : {}),
        }),
      );
    // Leo corrects every reply; his hints would become demonstrations on Maya's adapter if they reached her step.
    const leoTurn = (i: number) =>
      makeEndUserTurn({
        experimentId: e.id,
        endUserId: leo,
        prompt: `Plan day ${i}`,
        reply: "Rest.",
        reward: -1,
        hint: "The user wants bullet list answers: one point per line.",
      });
    for (let i = 0; i < 4; i++) await leoTurn(i);

    expect((await userSamples(e.id, maya)).map((s) => s.turnId)).toEqual(mayaTurns);
    const first = await trainUser(e.id, maya, base, e.config);
    // Her own hinted turn's two demonstrations, and two on each of the base's style prompts with her own hint
    // (stylePrompts, at most the base's whole pool); no more.
    const style = 2 * Math.min(e.config.perUser.stylePrompts, (await basePromptPool(e.config)).length);
    expect(style).toBeGreaterThan(0);
    expect(first).toMatchObject({ trained: true, samples: 4, demos: 2 + style, state: "PROMOTED" });
    const [v1] = await adapters(e.id, maya);

    // The same training again, with Leo's data (and hints) grown: byte-identical weights (Leo's turns would change
    // the gradient, and the number of steps, and his hints the demonstrations, if any reached Maya's adapter).
    await db().userAdapter.deleteMany({ where: { experimentId: e.id, endUserId: maya } });
    for (let i = 4; i < 12; i++) await leoTurn(i);
    expect(await trainUser(e.id, maya, base, e.config)).toMatchObject({ samples: 4, demos: 2 + style });
    const [again] = await adapters(e.id, maya);
    expect(again.samples).toBe(4);
    expect(Buffer.compare(again.weights, v1.weights)).toBe(0);

    // Leo's own adapter is trained from Leo's 12 turns and his 12 hints, and differs from Maya's.
    const leoResult = await trainUser(e.id, leo, base, e.config);
    // three steps of four: 2 per hinted turn, and the style prompts' with his hint per step
    expect(leoResult).toMatchObject({ trained: true, samples: 12, demos: 24 + 3 * style });
    const [leoV1] = await adapters(e.id, leo);
    expect(Buffer.compare(leoV1.weights, v1.weights)).not.toBe(0);
  });

  it("replays a user's adapter in another experiment with the same perUser.seed; without one, experiments differ", async () => {
    // Demonstrations too: the hinted turn's two are sampled with the user's seed.
    const settings = { minSamples: 4, heldOutFraction: 0, stylePrompts: 0, hindsightMinLogprob: -10 };
    const trained = async (seed?: number) => {
      const e = await perUserExperiment({ ...settings, ...(seed === undefined ? {} : { seed }) }, { maxTokens: 24 });
      for (let i = 0; i < 4; i++)
        await makeEndUserTurn({
          experimentId: e.id,
          endUserId: "sam",
          prompt: `Quiz ${i}`,
          reply: i === 0 ? "The answer is 12." : "Hint: halve it.",
          reward: i === 0 ? -1 : 1,
          ...(i === 0 ? { hint: "The user wants a hint, not the answer." } : {}),
        });
      expect(await trainUser(e.id, "sam", base, e.config)).toMatchObject({ trained: true, demos: 2 });
      return (await adapters(e.id, "sam"))[0].weights;
    };
    expect(Buffer.compare(await trained(7), await trained(7))).toBe(0);
    expect(Buffer.compare(await trained(7), await trained(8))).not.toBe(0);
    expect(Buffer.compare(await trained(), await trained())).not.toBe(0);
  });

  it("waits for minSamples new samples before training a new version", async () => {
    const e = await perUserExperiment({ minSamples: 3, heldOutFraction: 0 });
    const ava = uniq("ava");
    await makeEndUserTurn({ experimentId: e.id, endUserId: ava, prompt: "Hi", reply: "Hello. — Ava's bot", reward: 1 });
    expect(await trainUser(e.id, ava, base, e.config)).toEqual({
      trained: false,
      reason: "too_few_samples",
      samples: 1,
      needed: 3,
    });
    expect(await adapters(e.id, ava)).toEqual([]);
  });

  it("trains whole steps only: a remainder short of minSamples waits for the next version", async () => {
    const e = await perUserExperiment({ minSamples: 4, heldOutFraction: 0 });
    const noor = uniq("noor");
    const turn = (i: number) =>
      makeEndUserTurn({ experimentId: e.id, endUserId: noor, prompt: `Q ${i}`, reply: "A.", reward: 1 });
    for (let i = 0; i < 6; i++) await turn(i);
    // One step of the oldest four; the other two are neither trained nor passed over.
    expect(await trainUser(e.id, noor, base, e.config)).toMatchObject({ trained: true, version: 1, samples: 4 });
    expect(await trainUser(e.id, noor, base, e.config)).toMatchObject({ trained: false, samples: 2, needed: 4 });
    for (let i = 6; i < 8; i++) await turn(i);
    expect(await trainUser(e.id, noor, base, e.config)).toMatchObject({ trained: true, version: 2, samples: 4 });
    expect((await adapters(e.id, noor)).map((a) => a.samples)).toEqual([4, 4]);
  });

  it("two trainers taking the same user at once make one version: the second stands down", async () => {
    const e = await perUserExperiment({ minSamples: 4, heldOutFraction: 0 });
    const sam = uniq("sam");
    for (let i = 0; i < 8; i++)
      await makeEndUserTurn({ experimentId: e.id, endUserId: sam, prompt: `Hint ${i}`, reply: "Try…", reward: 1 });
    // Both read "no version yet" before either writes (training yields between steps), as the worker's tick and
    // a "train due users" click would.
    const results = await Promise.all([trainUser(e.id, sam, base, e.config), trainUser(e.id, sam, base, e.config)]);
    expect(results.map((r) => (r.trained ? "trained" : r.reason)).sort()).toEqual(["trained", "trained_concurrently"]);
    const versions = await adapters(e.id, sam);
    expect(versions.map((v) => [v.version, v.state])).toEqual([[1, "PROMOTED"]]);
  });
});

describe("per-user gate and rollback", () => {
  /** Turns of one user whose held-out half agrees (or disagrees) with what the trainable half rewards. */
  async function splitTurns(experimentId: string, endUserId: string, heldOutAgrees: boolean, fraction: number) {
    let trainable = 0;
    let heldOut = 0;
    for (let i = 0; trainable < 4 || heldOut < 2; i++) {
      const id = await makeEndUserTurn({ experimentId, endUserId, prompt: `Question ${i}?`, reply: "Yes.", reward: 1 });
      if (isHeldOut(id, fraction)) {
        heldOut++;
        if (!heldOutAgrees) await db().judgment.updateMany({ where: { turnId: id }, data: { score: -1 } });
      } else trainable++;
    }
  }

  it("promotes a candidate that improves the user's held-out score and rejects one that worsens it", async () => {
    const e = await perUserExperiment({
      minSamples: 4,
      heldOutFraction: 0.5,
      lr: 1,
      gateTolerance: 0.01,
      advantages: "raw",
    });
    const good = uniq("good");
    const bad = uniq("bad");
    await splitTurns(e.id, good, true, 0.5);
    await splitTurns(e.id, bad, false, 0.5);
    const g = await trainUser(e.id, good, base, e.config);
    const b = await trainUser(e.id, bad, base, e.config);
    expect(g).toMatchObject({ trained: true, state: "PROMOTED" });
    expect(b).toMatchObject({ trained: true, state: "REJECTED" });
    if (!g.trained || !b.trained) throw new Error("unreachable");
    expect(g.evalScore!).toBeGreaterThan(g.servedScore!);
    expect(b.evalScore!).toBeLessThan(b.servedScore! - 0.01);
    const users = await listEndUsers(admin, { experimentId: e.id });
    expect(users.find((u) => u.endUserId === good)).toMatchObject({ servedVersion: 1, versions: 1 });
    expect(users.find((u) => u.endUserId === bad)).toMatchObject({ servedVersion: null, versions: 1 });
  });

  it("rolls a user back along their chain: v2 → v1 → base, audited", async () => {
    const e = await perUserExperiment({ minSamples: 2, heldOutFraction: 0 });
    const sam = uniq("sam");
    const turn = (i: number) =>
      makeEndUserTurn({ experimentId: e.id, endUserId: sam, prompt: `Hint ${i}`, reply: "Try x.", reward: 1 });
    await turn(0);
    await turn(1);
    await trainUser(e.id, sam, base, e.config);
    await turn(2);
    await turn(3);
    await trainUser(e.id, sam, base, e.config);
    let chain = await adapters(e.id, sam);
    expect(chain.map((a) => [a.version, a.state])).toEqual([
      [1, "SUPERSEDED"],
      [2, "PROMOTED"],
    ]);
    expect(chain[1].parentId).toBe(chain[0].id);
    expect(chain[1].samples).toBe(2); // only the samples after v1's

    expect(await rollbackEndUser(admin, { experimentId: e.id, endUserId: sam })).toMatchObject({
      rolledBack: 2,
      served: 1,
    });
    chain = await adapters(e.id, sam);
    expect(chain.map((a) => a.state)).toEqual(["PROMOTED", "ROLLED_BACK"]);
    expect(await rollbackEndUser(admin, { experimentId: e.id, endUserId: sam })).toMatchObject({
      rolledBack: 1,
      served: null,
    });
    await expect(rollbackEndUser(admin, { experimentId: e.id, endUserId: sam })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    const logs = await db().auditLog.findMany({ where: { action: "endUser.rollback", resourceId: chain[1].id } });
    expect(logs).toHaveLength(1);
  });
});

describe("deleting a user", () => {
  it("removes their adapters, turns, judgments and sessions, audited, and leaves other users alone", async () => {
    const e = await perUserExperiment({ minSamples: 1, heldOutFraction: 0 });
    const gone = uniq("gone");
    const stays = uniq("stays");
    const goneTurn = await makeEndUserTurn({ experimentId: e.id, endUserId: gone, prompt: "a", reply: "b", reward: 1 });
    await makeEndUserTurn({ experimentId: e.id, endUserId: stays, prompt: "a", reply: "b", reward: 1 });
    await trainUser(e.id, gone, base, e.config);
    await trainUser(e.id, stays, base, e.config);
    const session = (await db().turn.findUniqueOrThrow({ where: { id: goneTurn } })).sessionId;

    expect(await deleteEndUser(admin, { experimentId: e.id, endUserId: gone })).toMatchObject({
      adapters: 1,
      turns: 1,
    });
    expect(await db().turn.count({ where: { experimentId: e.id, endUserId: gone } })).toBe(0);
    expect(await db().judgment.count({ where: { turnId: goneTurn } })).toBe(0);
    expect(await db().agentSession.count({ where: { id: session } })).toBe(0);
    expect(await adapters(e.id, gone)).toEqual([]);
    expect(await db().turn.count({ where: { experimentId: e.id, endUserId: stays } })).toBe(1);
    expect(await adapters(e.id, stays)).toHaveLength(1);
    expect(await db().auditLog.count({ where: { action: "endUser.delete", resourceId: `${e.id}:${gone}` } })).toBe(1);
    await expect(deleteEndUser(admin, { experimentId: e.id, endUserId: gone })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});

describe("the scheduler's tick", () => {
  it("trains due users of active per-user experiments only", async () => {
    const perUserExp = await perUserExperiment({ minSamples: 1, heldOutFraction: 0 });
    const shared = await makeExperiment({});
    const archived = await perUserExperiment({ minSamples: 1, heldOutFraction: 0 });
    await db().experiment.update({ where: { id: archived.id }, data: { status: "ARCHIVED" } });
    for (const e of [perUserExp, shared, archived])
      await makeEndUserTurn({ experimentId: e.id, endUserId: "kim", prompt: "Hi", reply: "Hello.", reward: 1 });
    const ids = [perUserExp.id, shared.id, archived.id];
    const result = await perUserTick(ids);
    expect(Object.keys(result)).toEqual([perUserExp.id]);
    expect(result[perUserExp.id].kim).toMatchObject({ trained: true, version: 1 });
    expect(await db().userAdapter.count({ where: { experimentId: { in: [shared.id, archived.id] } } })).toBe(0);
    // Nothing new since: the next tick trains nobody.
    expect((await perUserTick(ids))[perUserExp.id].kim).toMatchObject({ trained: false });
  });
});

describe("the shared adapter for new users", () => {
  it("trains on every user's turns beside each user's own adapter, which stays on theirs; rolls back like a user's", async () => {
    const e = await perUserExperiment({ minSamples: 2, heldOutFraction: 0, newUsers: "shared" });
    const [maya, leo] = [uniq("maya"), uniq("leo")];
    const turns = new Map<string, string[]>([
      [maya, []],
      [leo, []],
    ]);
    for (const user of [maya, leo])
      for (const i of [0, 1])
        turns
          .get(user)!
          .push(
            await makeEndUserTurn({ experimentId: e.id, endUserId: user, prompt: `q${i}`, reply: "Ok.", reward: 1 }),
          );
    expect((await userSamples(e.id, EVERYONE)).map((s) => s.turnId).sort()).toEqual(
      [...turns.get(maya)!, ...turns.get(leo)!].sort(),
    );
    expect((await userSamples(e.id, maya)).map((s) => s.turnId)).toEqual(turns.get(maya));

    const tick = (await perUserTick([e.id]))[e.id];
    expect(tick[EVERYONE]).toMatchObject({ trained: true, version: 1, samples: 4, state: "PROMOTED" });
    expect(tick[maya]).toMatchObject({ trained: true, version: 1, samples: 2 });
    expect(tick[leo]).toMatchObject({ trained: true, version: 1, samples: 2 });

    // The Users view lists it first, with everyone's turns as its own.
    const [first, ...users] = await listEndUsers(admin, { experimentId: e.id });
    expect(first).toMatchObject({ endUserId: EVERYONE, servedVersion: 1, turns: 4, trainedSamples: 4 });
    expect(users.map((u) => u.endUserId).sort()).toEqual([maya, leo].sort());
    expect(await rollbackEndUser(admin, { experimentId: e.id, endUserId: EVERYONE })).toMatchObject({ served: null });

    // Without the option, nothing trains on everyone.
    const plain = await perUserExperiment({ minSamples: 2, heldOutFraction: 0 });
    for (const i of [0, 1])
      await makeEndUserTurn({ experimentId: plain.id, endUserId: maya, prompt: `q${i}`, reply: "Ok.", reward: 1 });
    expect(Object.keys((await perUserTick([plain.id]))[plain.id])).toEqual([maya]);
    expect((await listEndUsers(admin, { experimentId: plain.id })).map((u) => u.endUserId)).toEqual([maya]);
  });
});
