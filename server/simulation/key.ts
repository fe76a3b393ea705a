// The simulate worker's own API key: proxy scope to talk to the proxy, write scope so the proxy accepts its
// X-Simulated-Persona header, identity scope so it may name each simulated user as the end user (X-User-Id). Minted at start, held only in the worker's memory, short-lived (rotated before it
// expires) and revoked on shutdown; a crashed worker's key simply expires.
import { db } from "../platform/db/client";
import { createApiKey } from "../apiKeys/service";
import { audit } from "../access/audit";
import { forgetApiKey } from "../access/apiKeys";
import { publish } from "../platform/bus/pubsub";

export const SIMULATION_KEY_NAME = "simulated users (workers/simulate)";
export const SIMULATION_KEY_TTL_MS = 24 * 3600_000;

export interface SimulationKey {
  id: string;
  key: string;
  expiresAt: Date;
}

export function mintSimulationKey(ttlMs = SIMULATION_KEY_TTL_MS): Promise<SimulationKey> {
  return mintWorkerKey(SIMULATION_KEY_NAME, ["proxy", "write", "identity"], ttlMs);
}

/** A worker's own key (also workers/episodes'), minted by the system (no principal). */
export async function mintWorkerKey(
  name: string,
  scopes: ("proxy" | "write" | "identity")[],
  ttlMs = SIMULATION_KEY_TTL_MS,
): Promise<SimulationKey> {
  const expiresAt = new Date(Date.now() + ttlMs);
  const k = await createApiKey(null, { name, scopes, expiresAt });
  return { id: k.id, key: k.key, expiresAt };
}

/** Revoked by the system (no principal: the worker is not a user), audited and announced like any revocation. */
export async function revokeSimulationKey(id: string): Promise<void> {
  const row = await db().$transaction(async (tx) => {
    const before = await tx.apiKey.findUnique({ where: { id } });
    if (!before || before.revokedAt) return null;
    const after = await tx.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
    await audit(tx, null, "apiKey.revoke", "apiKey", id, { revokedAt: null }, { revokedAt: after.revokedAt });
    return after;
  });
  if (!row) return;
  forgetApiKey(row.prefix);
  await publish("apiKeyRevoked", { prefix: row.prefix }).catch(() => {});
}
