// Fixtures for the evaluation tests: a per-file Redis prefix and data dir, experiments and runs as rows,
// checkpoints trained with the real engine, and recorded turns with judgments and labels.
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { db, type Prisma } from "../../../server/platform/db/client";
import { ExperimentConfigSchema, type ExperimentConfigInput } from "../../../server/config/experimentConfig";
import { saveCheckpoint } from "../../../server/engine/checkpoint";
import type { PolicyModel } from "../../../server/engine/model";
import type { ChannelName, ChannelPayload } from "../../../server/platform/bus/contracts";
import { subscribe } from "../../../server/platform/bus/pubsub";

export const uniq = (p = "t") => `${p}-${randomBytes(4).toString("hex")}`;

/** Must run before anything touches Redis (env() is read once and cached). */
export function isolateRedis(name: string): void {
  process.env.REDIS_PREFIX = `${process.env.REDIS_PREFIX ?? "test:"}${name}-${randomBytes(3).toString("hex")}:`;
}

export async function isolateDataDir(name: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `eval-${name}-`));
  process.env.DATA_DIR = dir;
  return dir;
}

export async function makeExperiment(config: ExperimentConfigInput) {
  const parsed = ExperimentConfigSchema.parse(config);
  const e = await db().experiment.create({ data: { slug: uniq("eval"), name: "evaluation test", config: parsed as unknown as Prisma.InputJsonValue } });
  return { id: e.id, config: parsed };
}

export async function makeRun(experimentId: string): Promise<string> {
  const e = await db().experiment.findUniqueOrThrow({ where: { id: experimentId } });
  const run = await db().run.create({ data: { experimentId, number: 1, config: e.config as Prisma.InputJsonValue, trainerBackend: "embedded", status: "RUNNING", startedAt: new Date() } });
  return run.id;
}

export async function checkpoint(dir: string, name: string, model: PolicyModel, version: number): Promise<string> {
  const target = path.join(dir, name);
  await saveCheckpoint(target, model, { version, step: version });
  return target;
}

/** A judged main turn served by `version` (its next state arrived), with optional human label. */
export async function judgedTurn(experimentId: string, version: number, score: number, label?: { source: "REVIEWER" | "USER"; value: number }, judgeVersion = "jv-test") {
  const session = await db().agentSession.create({ data: { experimentId, externalId: uniq("s") } });
  const turn = await db().turn.create({
    data: {
      requestId: uniq("r"), experimentId, sessionId: session.id, index: 0, messagesDelta: [{ role: "user", content: "q" }] as Prisma.InputJsonValue,
      content: "a", policyVersion: version, nextState: { role: "user", content: "next" } as Prisma.InputJsonValue, nextStateAt: new Date(),
    },
  });
  await db().judgment.create({ data: { turnId: turn.id, judgeVersion, judgeKind: "heuristic", model: "heuristic-rules-v1", promptVersion: "p", score } });
  if (label) await db().label.create({ data: { turnId: turn.id, source: label.source, value: label.value } });
  return turn.id;
}

/** Collect what is published on a channel for one experiment. */
export async function collect<C extends ChannelName>(channel: C, experimentId: string) {
  const seen: ChannelPayload<C>[] = [];
  const stop = await subscribe(channel, (m) => (m as { experimentId: string }).experimentId === experimentId && seen.push(m));
  return { seen, stop };
}

export async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
