// Applies prisma/migrations/*/migration.sql to a real Postgres. The Prisma CLI cannot migrate through
// the pg adapter, so we run the committed SQL ourselves: one transaction per migration, under an
// advisory lock (concurrent starters wait), with a checksum ledger that refuses edited migrations.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";

const LOCK_KEY = 72_801_001; // arbitrary, fixed: identifies "console migrations" among advisory locks
const LEDGER = "_console_migrations";

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  skipped: string[];
}

export class MigrationChecksumError extends Error {}

export async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    }),
  );
}

export async function migrate(
  databaseUrl: string,
  migrationsDir = path.resolve("prisma/migrations"),
  log: (line: string) => void = () => {},
): Promise<MigrateResult> {
  const migrations = await readMigrations(migrationsDir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${LEDGER} (
         name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM ${LEDGER}`);
    const applied = new Map(rows.map((r) => [r.name, r.checksum]));
    const result: MigrateResult = { applied: [], skipped: [] };
    for (const m of migrations) {
      const prior = applied.get(m.name);
      if (prior !== undefined) {
        if (prior !== m.checksum) {
          throw new MigrationChecksumError(
            `Migration ${m.name} was changed after it was applied (checksum ${prior.slice(0, 12)} → ${m.checksum.slice(0, 12)}). ` +
              "Applied migrations are immutable: revert the edit and add a new migration instead.",
          );
        }
        result.skipped.push(m.name);
        continue;
      }
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query(`INSERT INTO ${LEDGER} (name, checksum) VALUES ($1, $2)`, [m.name, m.checksum]);
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK");
        throw new Error(`Migration ${m.name} failed and was rolled back: ${(err as Error).message}`);
      }
      log(`applied migration ${m.name}`);
      result.applied.push(m.name);
    }
    return result;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => {});
    await client.end();
  }
}
