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
