// Fixtures for the batch lease tests: an experiment on an external trainer, a run, and judged turns
// recorded in the proxy's compact form (system blob + per-turn message deltas), so the lease route's
// sample filler (server/training/samples.ts) turns them into Sample rows as it would in production.
import { randomBytes } from "node:crypto";
import { db, type Prisma } from "../../../server/platform/db/client";
import type { Principal } from "../../../server/access/principal";
import { ExperimentConfigSchema, type ExperimentConfigInput } from "../../../server/experiments/config";
import { createExperiment } from "../../../server/experiments/service";
import { blobOf } from "../../../server/recording/compact";
import { makeKey } from "../../helpers/fixtures";

export const uniq = (p = "t") => `${p}-${randomBytes(4).toString("hex")}`;

export const SLIME_EXPERIMENT: ExperimentConfigInput = {
  method: "grpo",
  policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30000/v1", model: "Qwen/Qwen3-4B" },
  trainer: { backend: "ray-slime", rayAddress: "http://127.0.0.1:8265" },
};

const admin: Principal = { kind: "apiKey", keyId: "batches-test", prefix: "batches", scopes: ["admin"], experimentId: null, createdById: null };

/** Through the service (with its audit entry), as the UI creates them. */
export async function makeExperiment(config: ExperimentConfigInput = SLIME_EXPERIMENT) {
  return createExperiment(admin, { name: "batch lease test", slug: uniq("batches"), description: "", config: ExperimentConfigSchema.parse(config) });
}

export async function makeRun(experimentId: string, opts: { status?: "PENDING" | "RUNNING" | "PAUSED"; trainerBackend?: string } = {}) {
  const e = await db().experiment.findUniqueOrThrow({ where: { id: experimentId } });
  const last = await db().run.findFirst({ where: { experimentId }, orderBy: { number: "desc" }, select: { number: true } });
  return db().run.create({
    data: {
      experimentId,
      number: (last?.number ?? 0) + 1,
      config: e.config as Prisma.InputJsonValue,
      trainerBackend: opts.trainerBackend ?? "ray-slime",
      status: opts.status ?? "RUNNING",
      startedAt: new Date(),
    },
  });
}

export const SYSTEM = { role: "system", content: "You are a helpful assistant." };
export const TOOLS = [{ type: "function", function: { name: "search", parameters: { type: "object", properties: {} } } }];

/**
 * A session of `n` main turns, each judged +1 (a grpo RL sample with reward 1). Turn i asks question i; its
 * delta is that question plus the previous answer, so reassembling turn i gives the whole conversation.
 */
export async function makeJudgedSession(experimentId: string, runId: string, n: number, opts: { score?: number } = {}) {
  const system = blobOf("system", SYSTEM);
  const tools = blobOf("tools", TOOLS);
  for (const b of [system, tools]) {
    await db().blob.upsert({ where: { hash: b.hash }, create: { ...b, content: b.content as Prisma.InputJsonValue }, update: {} });
  }
  const session = await db().agentSession.create({ data: { experimentId, externalId: uniq("sess"), turnCount: n } });
  const turnIds: string[] = [];
  for (let i = 0; i < n; i++) {
    const delta = i === 0 ? [{ role: "user", content: "question 0" }] : [{ role: "assistant", content: `answer ${i - 1}` }, { role: "user", content: `question ${i}` }];
    const turn = await db().turn.create({
      data: {
        requestId: uniq("req"),
        experimentId,
        sessionId: session.id,
        runId,
        index: i,
        systemHash: system.hash,
        toolsHash: tools.hash,
        messagesOffset: i === 0 ? 0 : 2 * i - 1,
        messagesDelta: delta as Prisma.InputJsonValue,
        content: `answer ${i}`,
        finishReason: "stop",
        tokenIds: [100 + i, 200 + i, 300 + i],
        logprobs: [-0.5, -0.25, -0.125],
        policyVersion: 0,
        nextState: { role: "user", content: `question ${i + 1}` },
        nextStateRole: "user",
        nextStateAt: new Date(),
      },
    });
    await db().judgment.create({
      data: {
        turnId: turn.id, judgeVersion: "test-v1", judgeKind: "prm", model: "fake-prm", promptVersion: "p1",
        score: opts.score ?? 1, evalScore: opts.score ?? 1, dispatch: "rl",
      },
    });
    turnIds.push(turn.id);
  }
  return { sessionId: session.id, turnIds };
}

/** A write key bound to the experiment, as the supervisor issues to a trainer job. */
export const trainerKey = (experimentId: string) => makeKey(["write"], experimentId);
