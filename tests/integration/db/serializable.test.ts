// Serializable transactions are retried on Postgres's serialization failures, and only on those.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { isSerializationFailure, serializable } from "../../../server/platform/db/serializable";
import { startRun } from "../../../server/runs/service";
import { AppError } from "../../../server/platform/errors";
import { ADMIN, makeExperiment } from "../../helpers/fixtures";

const RAISE_40001 = `DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = '40001'; END $$`;
const TABLE = `serializable_probe_${process.pid}`;

beforeAll(async () => {
  await db().$executeRawUnsafe(`CREATE TABLE "${TABLE}" (id int PRIMARY KEY, v int NOT NULL)`);
});
afterAll(async () => {
  await db().$executeRawUnsafe(`DROP TABLE IF EXISTS "${TABLE}"`);
});

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

describe("isSerializationFailure", () => {
  it("recognises SQLSTATE 40001 from a raw query and rejects other database errors", async () => {
    expect(isSerializationFailure(await rejection(db().$executeRawUnsafe(RAISE_40001)))).toBe(true);
    expect(isSerializationFailure(await rejection(db().$queryRawUnsafe(`SELECT 1/0`)))).toBe(false);
    expect(isSerializationFailure(new Error("TransactionWriteConflict"))).toBe(false);
    expect(isSerializationFailure(null)).toBe(false);
  });
});

describe("serializable", () => {
  it("reruns a transaction that Postgres aborted, and gives up after the last attempt", async () => {
    let calls = 0;
    const v = await serializable(async (tx) => {
      calls++;
      if (calls === 1) await tx.$executeRawUnsafe(RAISE_40001);
      return "done";
    });
    expect([v, calls]).toEqual(["done", 2]);

    let tries = 0;
    const err = await rejection(serializable(async (tx) => (tries++, tx.$executeRawUnsafe(RAISE_40001)), 3));
    expect(isSerializationFailure(err)).toBe(true);
    expect(tries).toBe(3);
  });

  it("does not rerun on an ordinary error", async () => {
    let calls = 0;
    await expect(serializable(async () => (calls++, Promise.reject(new AppError("CONFLICT", "no"))))).rejects.toThrow(
      "no",
    );
    expect(calls).toBe(1);
  });

  it("lets two transactions that read what the other writes both commit, one after a retry", async () => {
    // Each reads the sum and inserts a row: run side by side, Postgres must abort one (write skew).
    let arrived = 0;
    let open!: () => void;
    const bothRead = new Promise<void>((r) => (open = r));
    let attempts = 0;
    const insertSum = (id: number) =>
      serializable(async (tx) => {
        attempts++;
        const [{ s }] = await tx.$queryRawUnsafe<{ s: number }[]>(
          `SELECT coalesce(sum(v), 0)::int AS s FROM "${TABLE}"`,
        );
        if (++arrived === 2) open();
        await bothRead;
        await tx.$executeRawUnsafe(`INSERT INTO "${TABLE}" (id, v) VALUES (${id}, ${s + 1})`);
      });
    await Promise.all([insertSum(1), insertSum(2)]);
    // At least one retry; a busy machine can abort a retry too (it read before the other committed), so not exactly 3.
    expect(attempts).toBeGreaterThanOrEqual(3);
    const rows = await db().$queryRawUnsafe<{ v: number }[]>(`SELECT v FROM "${TABLE}" ORDER BY v`);
    expect(rows.map((r) => r.v)).toEqual([1, 2]); // serial order: the second saw the first
  });
});

describe("startRun under concurrency", () => {
  it("starts exactly one run; every other concurrent start gets the 409, not a write conflict", async () => {
    const e = await makeExperiment();
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => startRun(ADMIN, e.id)));
    const ok = results.filter((r) => r.status === "fulfilled");
    const failed = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
    expect(ok).toHaveLength(1);
    expect(failed.map((f) => (f instanceof AppError ? f.code : String(f)))).toEqual([
      "CONFLICT",
      "CONFLICT",
      "CONFLICT",
    ]);
    expect(await db().run.count({ where: { experimentId: e.id } })).toBe(1);
  });
});
