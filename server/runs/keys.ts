// Trainer keys: one per launch, scope "trainer", bound to the run (and its experiment): it can lease, ack, report
// and read logs for that run only. It travels in a Ray package or a process environment that others on the
// cluster may read, so it must not be a write key. Revoked when the run ends, and the revocation is published
// to every process (apiKeyRevoked) so no cache keeps it alive.
import { forgetApiKey, generateApiKey } from "../access/apiKeys";
import { TRAINER_SCOPE } from "../access/principal";
import { publish } from "../platform/bus/pubsub";
import { db } from "../platform/db/client";

const trainerKeyName = (runId: string) => `trainer:run:${runId}`;

export async function issueTrainerKey(run: { id: string; experimentId: string }): Promise<string> {
  const key = generateApiKey();
  await db().apiKey.create({
    data: {
      name: trainerKeyName(run.id),
      prefix: key.prefix,
      secretHash: key.secretHash,
      scopes: [TRAINER_SCOPE],
      experimentId: run.experimentId,
      runId: run.id,
    },
  });
  return key.plaintext;
}

export async function revokeTrainerKeys(runId: string): Promise<number> {
  const keys = await db().apiKey.findMany({ where: { runId, revokedAt: null }, select: { id: true, prefix: true } });
  if (!keys.length) return 0;
  await db().apiKey.updateMany({ where: { id: { in: keys.map((k) => k.id) } }, data: { revokedAt: new Date() } });
  for (const k of keys) {
    forgetApiKey(k.prefix);
    await publish("apiKeyRevoked", { prefix: k.prefix }).catch(() => {});
  }
  return keys.length;
}
