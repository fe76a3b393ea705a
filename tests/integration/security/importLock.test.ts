// One import per user at a time, across web processes (issue #26, hole 11): the slot is a lease in Redis, so a
// second import by the same user — through another key of theirs, or arriving at another web process — gets
// 409 `import_in_progress` while the first runs; another user is not held up; the slot frees when the import
// ends, and a holder that died frees it when its lease expires.
import { afterAll, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import { handleApi } from "../../../server/gateway/handler";
import { createApiKey } from "../../../server/apiKeys/service";
import { acquireCallerLock, callerLockKey } from "../../../server/platform/callerLock";
import { createRedis, redis } from "../../../server/platform/redis";
import { makeExperiment, makeUser, uniq } from "../../helpers/fixtures";

const others: Redis[] = [];
afterAll(() => {
  for (const r of others) r.disconnect();
});
/** A Redis connection of its own: what another web process holding the lock looks like. */
function otherProcess(): Redis {
  const r = createRedis();
  others.push(r);
  return r;
}

const record = (i: number) =>
  `${JSON.stringify({
    session_id: uniq("s"),
    turn: 0,
    timestamp: 1_700_000_000 + i,
    messages: [{ role: "user", content: `hello ${i}` }],
    response_text: "hi",
  })}\n`;

async function keysOf(role: "ADMIN" | "REVIEWER" = "ADMIN", n = 2) {
  const user = await makeUser(role);
  const by = { kind: "user" as const, userId: user.id, email: user.email, role };
  const keys: string[] = [];
  for (let i = 0; i < n; i++) keys.push((await createApiKey(by, { name: uniq("key"), scopes: ["write"] })).key);
  return { user, keys };
}

function importRequest(key: string, experimentId: string, body: BodyInit) {
  return handleApi(
    new Request(`http://local/api/import/openclaw?experimentId=${experimentId}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body,
      duplex: "half",
    } as RequestInit),
  );
}

async function until(cond: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 2000; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("one import per user", () => {
  it("refuses a second import of the same user (another key of theirs) while the first runs, not another user's", async () => {
    const exp = await makeExperiment();
    const { user, keys } = await keysOf();
    const lockKey = callerLockKey("import", `user:${user.id}`);
    // The first import's body arrives slowly: the import holds its slot until the body ends.
    let finish!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode(record(0)));
        finish = () => c.close();
      },
    });
    const first = importRequest(keys[0]!, exp.id, body);
    // The slot lives in Redis (not in this process's memory), with an expiry.
    await until(async () => (await redis().exists(lockKey)) === 1, "the import's lease");
    expect(await redis().pttl(lockKey)).toBeGreaterThan(0);

    const second = await importRequest(keys[1]!, exp.id, record(1));
    expect(second.status).toBe(409);
    expect((await second.json()).error).toMatchObject({ reason: "import_in_progress" });

    const other = await keysOf();
    expect((await importRequest(other.keys[0]!, exp.id, record(2))).status).toBe(200);

    finish();
    const done = await first;
    expect(done.status, await done.clone().text()).toBe(200);
    expect(await redis().exists(lockKey)).toBe(0);
    expect((await importRequest(keys[1]!, exp.id, record(3))).status).toBe(200);
  });

  it("honours a lease another web process holds, and frees the slot when a dead holder's lease expires", async () => {
    const exp = await makeExperiment();
    const { user, keys } = await keysOf();
    const elsewhere = await acquireCallerLock("import", `user:${user.id}`, { client: otherProcess() });
    expect(elsewhere).not.toBeNull();
    const refused = await importRequest(keys[0]!, exp.id, record(0));
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toMatchObject({ reason: "import_in_progress" });
    await elsewhere!.release();
    expect((await importRequest(keys[0]!, exp.id, record(1))).status).toBe(200);

    // A process that took the slot and died never releases it: its short lease runs out instead.
    const dead = otherProcess();
    expect(await acquireCallerLock("import", `user:${user.id}`, { client: dead, ttlMs: 200 })).not.toBeNull();
    dead.disconnect(); // its renewals stop reaching Redis
    const lockKey = callerLockKey("import", `user:${user.id}`);
    await until(async () => (await redis().exists(lockKey)) === 0, "the dead holder's lease to expire");
    expect((await importRequest(keys[0]!, exp.id, record(2))).status).toBe(200);
  });
});
