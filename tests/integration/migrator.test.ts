import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, MigrationChecksumError } from "../../server/platform/db/migrator";
import { uniq } from "../helpers/fixtures";

// Each case gets its own scratch database on the test server.
const adminUrl = process.env.TEST_ADMIN_DATABASE_URL!;
const scratch: string[] = [];

async function newDb(): Promise<string> {
  const name = uniq("mig").replace(/-/g, "_");
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`CREATE DATABASE "${name}"`);
  await c.end();
  scratch.push(name);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

async function migrationsDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "mig-"));
  for (const [name, sql] of Object.entries(files)) {
    await mkdir(path.join(dir, name));
    await writeFile(path.join(dir, name, "migration.sql"), sql);
  }
  return dir;
}

async function query(url: string, sql: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}

beforeAll(() => expect(adminUrl).toBeTruthy());
afterAll(async () => {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  for (const n of scratch) await c.query(`DROP DATABASE IF EXISTS "${n}" WITH (FORCE)`);
  await c.end();
});

describe("migrator", () => {
  it("applies the committed migrations once and is a no-op the second time", async () => {
    const url = await newDb();
    const first = await migrate(url, path.resolve("prisma/migrations"));
    expect(first.applied.length).toBeGreaterThan(0);
    const second = await migrate(url, path.resolve("prisma/migrations"));
    expect(second.applied).toEqual([]);
    expect(second.skipped).toEqual(first.applied);
    const tables = await query(url, "SELECT tablename FROM pg_tables WHERE schemaname='public'");
    expect(tables.map((t) => t.tablename)).toEqual(
      expect.arrayContaining(["users", "experiments", "turns", "judgments", "audit_logs"]),
    );
  });

  it("rolls back a failing migration completely and records nothing for it", async () => {
    const url = await newDb();
    const dir = await migrationsDir({
      "001_ok": "CREATE TABLE a (id int);",
      "002_bad": "CREATE TABLE b (id int); INSERT INTO nope VALUES (1);",
    });
    await expect(migrate(url, dir)).rejects.toThrow(/002_bad failed and was rolled back/);
    const tables = (await query(url, "SELECT tablename FROM pg_tables WHERE schemaname='public'")).map(
      (t) => t.tablename,
    );
    expect(tables).toContain("a");
    expect(tables).not.toContain("b");
    const ledger = await query(url, "SELECT name FROM _console_migrations ORDER BY name");
    expect(ledger.map((r) => r.name)).toEqual(["001_ok"]);
  });

  it("refuses an applied migration whose SQL changed", async () => {
    const url = await newDb();
    const dir = await migrationsDir({ "001_init": "CREATE TABLE t (id int);" });
    await migrate(url, dir);
    await writeFile(path.join(dir, "001_init", "migration.sql"), "CREATE TABLE t (id bigint);");
    await expect(migrate(url, dir)).rejects.toBeInstanceOf(MigrationChecksumError);
  });

  it("serialises concurrent migrators with the advisory lock (each migration applied once)", async () => {
    const url = await newDb();
    const dir = await migrationsDir({
      "001_a": "CREATE TABLE a (id int); SELECT pg_sleep(0.3);",
      "002_b": "CREATE TABLE b (id int);",
    });
    const results = await Promise.all([migrate(url, dir), migrate(url, dir), migrate(url, dir)]);
    const appliedCounts = results.map((r) => r.applied.length).sort();
    expect(appliedCounts).toEqual([0, 0, 2]);
    expect(await query(url, "SELECT count(*)::int AS n FROM _console_migrations")).toEqual([{ n: 2 }]);
  });
});
