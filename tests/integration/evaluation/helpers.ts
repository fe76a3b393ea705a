// Fixtures for the evaluation tests: checkpoints trained with the real engine, recorded turns with judgments
// and labels, channel announcements. Experiments, runs, isolation and polling come from tests/helpers.
import path from "node:path";
import { db, type Prisma } from "../../../server/platform/db/client";
import { uniq } from "../../helpers/fixtures";
import { saveCheckpoint } from "../../../server/engine/checkpoint";
import type { PolicyModel } from "../../../server/engine/model";
import type { ChannelName, ChannelPayload } from "../../../server/platform/bus/contracts";
import { subscribe } from "../../../server/platform/bus/pubsub";

export async function checkpoint(dir: string, name: string, model: PolicyModel, version: number): Promise<string> {
  const target = path.join(dir, name);
  await saveCheckpoint(target, model, { version, step: version });
  return target;
}

/** A judged main turn served by `version` (its next state arrived), with optional human label. */
export async function judgedTurn(
  experimentId: string,
  version: number,
  score: number,
  label?: { source: "REVIEWER" | "USER"; value: number },
  judgeVersion = "jv-test",
) {
  const session = await db().agentSession.create({ data: { experimentId, externalId: uniq("s") } });
  const turn = await db().turn.create({
    data: {
      requestId: uniq("r"),
      experimentId,
      sessionId: session.id,
      index: 0,
      messagesDelta: [{ role: "user", content: "q" }] as Prisma.InputJsonValue,
      content: "a",
      policyVersion: version,
      nextState: { role: "user", content: "next" } as Prisma.InputJsonValue,
      nextStateAt: new Date(),
    },
  });
  await db().judgment.create({
    data: {
      turnId: turn.id,
      judgeVersion,
      judgeKind: "heuristic",
      model: "heuristic-rules-v1",
      promptVersion: "p",
      score,
    },
  });
  if (label) await db().label.create({ data: { turnId: turn.id, source: label.source, value: label.value } });
  return turn.id;
}

/** Collect what is published on a channel for one experiment. */
export async function collect<C extends ChannelName>(channel: C, experimentId: string) {
  const seen: ChannelPayload<C>[] = [];
  const stop = await subscribe(
    channel,
    (m) => (m as { experimentId: string }).experimentId === experimentId && seen.push(m),
  );
  return { seen, stop };
}
