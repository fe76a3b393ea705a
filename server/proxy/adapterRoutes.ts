// Per-user routing (personalization "per-user"): which adapter version serves an end user. The promoted version
// is read from Postgres and held for ROUTE_TTL_MS, so a hot user costs no query per request and a promotion,
// a rollback or a deletion reaches every replica within that time. Weights travel with the answer: the engine
// merges them once per version and keeps them in its own LRU (engine/adapterPool.ts).
import type { Db } from "../platform/db/client";
import type { ServedAdapter } from "../engine/adapterPool";
import { Lru } from "./lru";

export const ROUTE_TTL_MS = 2_000;

export interface PromotedAdapter extends ServedAdapter {
  /** the adapter row's id (recorded on the turn) */
  id: string;
  version: number;
  /** the PEFT folder a multi-LoRA engine loads (null: the embedded engine serves `weights`) */
  path: string | null;
}

export class AdapterRoutes {
  private readonly cache = new Lru<string, { at: number; value: PromotedAdapter | null }>(10_000);

  constructor(
    private readonly db: () => Db,
    private readonly ttlMs = ROUTE_TTL_MS,
  ) {}

  /** The user's served adapter changed: the next lookup reads it again. */
  forget(experimentId: string, endUserId: string): void {
    this.cache.delete(`${experimentId}\u0000${endUserId}`);
  }

  async promoted(experimentId: string, endUserId: string): Promise<PromotedAdapter | null> {
    const k = `${experimentId}\u0000${endUserId}`;
    const hit = this.cache.get(k);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.value;
    const row = await this.db().userAdapter.findFirst({
      where: { experimentId, endUserId, state: "PROMOTED" },
      orderBy: { version: "desc" },
      select: { id: true, version: true, weights: true, path: true },
    });
    const value = row
      ? { id: row.id, version: row.version, key: row.id, weights: new Uint8Array(row.weights), path: row.path }
      : null;
    this.cache.set(k, { at: Date.now(), value });
    return value;
  }
}
