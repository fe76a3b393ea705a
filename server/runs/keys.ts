// Trainer keys: one write key per launch, bound to the experiment, revoked when the run ends.
import { forgetApiKey } from "../access/apiKeys";
import { createApiKey } from "../apiKeys/service";
import { db } from "../platform/db/client";

const trainerKeyName = (runId: string) => `trainer:run:${runId}`;

export async function issueTrainerKey(run: { id: string; experimentId: string }): Promise<string> {
  return (await createApiKey(null, { name: trainerKeyName(run.id), scopes: ["write"], experimentId: run.experimentId }))
    .key;
}

export async function revokeTrainerKeys(runId: string): Promise<number> {
  const keys = await db().apiKey.findMany({
    where: { name: trainerKeyName(runId), revokedAt: null },
    select: { id: true, prefix: true },
  });
  if (!keys.length) return 0;
  await db().apiKey.updateMany({ where: { id: { in: keys.map((k) => k.id) } }, data: { revokedAt: new Date() } });
  for (const k of keys) forgetApiKey(k.prefix);
  return keys.length;
}
