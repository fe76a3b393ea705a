// Per-test-file namespaces for what test files share: Redis queues and the data directory.
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Gives this test file its own queue namespace under the run's prefix, so another file's worker never
 * takes its jobs. Must run before anything touches Redis (env() is read lazily and then cached).
 */
export function isolateRedis(name: string): string {
  const prefix = `${process.env.REDIS_PREFIX ?? "test:"}${name}-${randomBytes(3).toString("hex")}:`;
  process.env.REDIS_PREFIX = prefix;
  return prefix;
}

/** A per-file DATA_DIR (checkpoints go to <DATA_DIR>/checkpoints). */
export async function isolateDataDir(name: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `train-${name}-`));
  process.env.DATA_DIR = dir;
  return dir;
}

/**
 * A migrated database of this test file's own (for tests that need an empty store, e.g. first start), made the
 * process's DATABASE_URL. Must run before anything calls db() or env() (both read it once, lazily). Returns
 * the function that drops it.
 */
export async function isolateDatabase(name: string): Promise<() => Promise<void>> {
  const { dropDatabase, ensureDatabase, withDatabase } = await import("../../scripts/lib/database");
  const { migrate } = await import("../../server/platform/db/migrator");
  const adminUrl = process.env.TEST_ADMIN_DATABASE_URL;
  if (!adminUrl) throw new Error("TEST_ADMIN_DATABASE_URL is unset: run tests through `npm test`");
  const dbName = `ocrl_test_${name}_${randomBytes(4).toString("hex")}`;
  await ensureDatabase(adminUrl, dbName);
  const url = withDatabase(adminUrl, dbName);
  await migrate(url, path.resolve(import.meta.dirname, "../../prisma/migrations"));
  process.env.DATABASE_URL = url;
  return () => dropDatabase(adminUrl, dbName);
}
