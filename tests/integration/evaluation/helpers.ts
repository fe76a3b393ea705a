// Fixtures for the evaluation tests: checkpoints trained with the real engine, recorded turns with judgments
// and labels, channel announcements. Experiments, runs, isolation and polling come from tests/helpers.
import path from "node:path";
import { db, type Prisma } from "../../../server/platform/db/client";
import { uniq } from "../../helpers/fixtures";
import { makeJudgment } from "../../helpers/judgments";
import { saveCheckpoint } from "../../../server/engine/checkpoint";
import type { PolicyModel } from "../../../server/engine/model";
import { Adam } from "../../../server/engine/optimizer";
import { trainStep } from "../../../server/engine/train";
import { encode, END_ID, renderChat } from "../../../server/engine/tokenizer";
import { questionsFor, type Persona, type Question } from "../../../server/simulation/personas";
import type { ChannelName, ChannelPayload } from "../../../server/platform/bus/contracts";
import { subscribe } from "../../../server/platform/bus/pubsub";

export async function checkpoint(dir: string, name: string, model: PolicyModel, version: number): Promise<string> {
  const target = path.join(dir, name);
  await saveCheckpoint(target, model, { version, step: version });
  return target;
}

/**
 * Supervised steps on the persona's training questions toward `target(question)` (A = 1 with π_old recomputed is the
 * cross-entropy gradient).
 */
export async function fineTune(model: PolicyModel, persona: Persona, target: (q: Question) => string, steps: number) {
  const adam = new Adam({ lr: 3e-3 });
  const samples = questionsFor(persona).map((q) => {
    const responseIds = [...encode(target(q)), END_ID];
    return {
      promptIds: renderChat([{ role: "user", content: q.text }], { addGenerationPrompt: true }),
      responseIds,
      oldLogprobs: responseIds.map(() => 0),
      reward: 1,
      kind: "RL" as const,
    };
  });
  for (let i = 0; i < steps; i++) await trainStep(model, adam, samples, { microBatchSize: 8 });
  adam.dispose();
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
  await makeJudgment(turn.id, { judgeVersion, model: "heuristic-rules-v1", score });
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
