// Where policy versions live on disk, and pruning to the last K. Every attempt writes a directory of its
// own (`v<version>-<tag>`): a checkpoint written by a trainer that died (or lost a race) before its commit
// is never mistaken for a committed one; it is simply unreferenced, and pruning removes it. Pruning only
// ever touches this experiment's folder under DATA_DIR, never a base checkpoint such as models/base.
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { db } from "../platform/db/client";
import { env } from "../platform/env";

export function checkpointRoot(dataDir = env().DATA_DIR): string {
  return path.resolve(dataDir, "checkpoints");
}

export function experimentCheckpointDir(experimentId: string, dataDir?: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(experimentId))
    throw new Error(`unexpected experiment id ${JSON.stringify(experimentId)}`);
  return path.join(checkpointRoot(dataDir), experimentId);
}

export function newCheckpointDir(experimentId: string, version: number, dataDir?: string): string {
  return path.join(experimentCheckpointDir(experimentId, dataDir), `v${version}-${randomBytes(3).toString("hex")}`);
}

export async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await fs.readdir(dir)) total += (await fs.stat(path.join(dir, name))).size;
  return total;
}

export interface PruneResult {
  /** versions whose files were deleted (their rows stay, with checkpointPath cleared) */
  prunedVersions: number[];
  /** other entries removed: uncommitted attempts, interrupted writes */
  removedOrphans: string[];
}

/**
 * Keep the files of the `keep` newest versions that still have them, plus the ACTIVE one; delete the
 * rest of the experiment's folder. Rows keep their status and SHA; `checkpointPath` becomes null, which
 * is how the UI and promote/rollback know the files are gone.
 */
export async function pruneCheckpoints(experimentId: string, keep: number, dataDir?: string): Promise<PruneResult> {
  const root = experimentCheckpointDir(experimentId, dataDir);
  const rows = await db().policyVersion.findMany({
    where: { experimentId, checkpointPath: { not: null } },
    orderBy: { version: "desc" },
    select: { id: true, version: true, status: true, checkpointPath: true },
  });
  const ours = rows.filter((r) => path.dirname(path.resolve(r.checkpointPath!)) === root);
  const kept = new Set(ours.slice(0, keep).map((r) => r.id));
  for (const r of ours) if (r.status === "ACTIVE") kept.add(r.id);
  const prunedVersions: number[] = [];
  for (const r of ours) {
    if (kept.has(r.id)) continue;
    await db().policyVersion.update({ where: { id: r.id }, data: { checkpointPath: null } });
    await fs.rm(r.checkpointPath!, { recursive: true, force: true });
    prunedVersions.push(r.version);
  }
  const keepNames = new Set(ours.filter((r) => kept.has(r.id)).map((r) => path.basename(r.checkpointPath!)));
  const removedOrphans: string[] = [];
  const entries = await fs.readdir(root).catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return [] as string[];
    throw e;
  });
  for (const name of entries) {
    if (keepNames.has(name)) continue;
    await fs.rm(path.join(root, name), { recursive: true, force: true });
    removedOrphans.push(name);
  }
  return { prunedVersions: prunedVersions.sort((a, b) => a - b), removedOrphans };
}
