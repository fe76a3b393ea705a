// One method of the learning benchmark, in its own process (the parent sets DATABASE_URL, REDIS_URL, a Redis
// prefix of its own, SECRET_KEY and DATA_DIR): the demo experiment's config for that method, a RUNNING run, the
// real proxy, judge worker and trainer in-process, and simulated users in lockstep (bench/lib/lockstep).
// Prints one JSON line per step and a final result line.
import path from "node:path";
import { randomBytes } from "node:crypto";
import OpenAI from "openai";
import { db } from "../../server/platform/db/client";
import { createApiKey } from "../../server/apiKeys/service";
import { closeQueues } from "../../server/platform/bus/queues";
import { startProxy } from "../../server/proxy/server";
import { DEMO_EXPERIMENTS, demoConfig } from "../../server/simulation/demo";
import type { ExperimentConfig } from "../../server/config/experimentConfig";
import { lockstepExperiment, lockstepJudge, runLockstep } from "../lib/lockstep";
import { simulationProgress } from "../../server/simulation/service";
import type { SimulationSettings } from "../../server/simulation/schemas";
import { Trainer } from "../../server/training/loop";
import { loadCheckpoint } from "../../server/engine/checkpoint";
import { disposeModel } from "../../server/engine/model";
import { initBackend } from "../../server/engine/backend";
import { measureCompliance, type PersonaCompliance } from "./compliance";
import { firstReplyScore, type FirstReplyScore } from "./firstReply";
import type { Principal } from "../../server/access/principal";
import { gatedConfig, trainingQuestionGate, ungatedConfig } from "../lib/gate";

export interface ChildResult {
  method: string;
  steps: number;
  conversations: number;
  wallS: number;
  /** judged reward of the turns each policy version served (version v = after step v) */
  versions: { version: number; turns: number; reward: number }[];
  stepMs: number[];
  /** mean train/kl_loss (k3 KL to the base on the trained samples) over the last 10 steps */
  klToBase: number;
  /** the final policy measured as bench/learning/compliance.ts measures the base (the demo's persona) */
  final: PersonaCompliance;
  /** judged reward of the last `window` versions' replies by position: a conversation's first judged reply, or a later one */
  byPosition: { first: PositionReward; later: PositionReward };
  /** first replies to the persona's held-out questions graded as persona-v2 grades them, at fixed versions */
  /** `version`: graded after that step; `served`, with a gate, the version then served when it is another */
  firstReply: ({ version: number; served?: number } & FirstReplyScore)[];
}

/** The versions whose first replies are graded (issue 27's fixed steps, then every 50; and the version the run ends at). */
export const GRADED_VERSIONS = [0, 4, 8, 12, 16, 24, 32, 48, 60, 100, 150];

export interface PositionReward {
  turns: number;
  reward: number | null;
}

/** Judged main replies of versions ≥ `fromVersion`, split by their position among the session's judged replies. */
async function rewardByPosition(experimentId: string, fromVersion: number): Promise<ChildResult["byPosition"]> {
  const rows = await db().$queryRaw<{ first: boolean; turns: number; reward: number | null }[]>`
    SELECT (x.pos = 1) AS first, count(*)::int AS turns, avg(x.score)::float8 AS reward FROM (
      SELECT t."policyVersion" AS version, j.score, row_number() OVER (PARTITION BY t."sessionId" ORDER BY t.index) AS pos
      FROM turns t
      JOIN LATERAL (SELECT score FROM judgments WHERE "turnId" = t.id ORDER BY "createdAt" DESC LIMIT 1) j ON true
      WHERE t."experimentId" = ${experimentId} AND t."turnType" = 'MAIN' AND t.status = 'OK' AND t."nextStateAt" IS NOT NULL
    ) x WHERE x.version >= ${fromVersion} GROUP BY 1`;
  const of = (first: boolean): PositionReward => rows.find((r) => r.first === first) ?? { turns: 0, reward: null };
  return { first: of(true), later: of(false) };
}

export interface ChildOverrides {
  lr?: number;
  batchSize?: number;
  /** any other hyperparameters of the demo's config (bench/learning/run.ts --hyper) */
  hyper?: Partial<ExperimentConfig["hyper"]>;
  checkpoint: string;
  /** conversations between trainer ticks (bench/lib/lockstep.ts): above 1, the live demo's stale batches */
  conversationsPerTick?: number;
  /** replies sampled per held-out question when a version is graded (default: firstReply.ts, at least 32 replies) */
  gradeK?: number;
  /** gated promotion on the persona's training questions, K replies each (run.ts --gateK) */
  gateK?: number;
  /** with gateK: each winner and the served version compared again on fresh seeds before a promotion (run.ts --gateConfirm) */
  gateConfirm?: boolean;
}

const emit = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);

export async function runChild(
  method: string,
  steps: number,
  settings: SimulationSettings,
  overrides: ChildOverrides,
  window = 10,
  maxConversations?: number,
  until?: number,
): Promise<void> {
  const demo = DEMO_EXPERIMENTS.find((d) => demoConfig(d).method === method);
  if (!demo) throw new Error(`no demo experiment for method ${method}`);
  let config = demoConfig(demo);
  Object.assign(config.hyper, overrides.hyper);
  // Every version's checkpoint stays: the first replies are graded at fixed versions after the run.
  config.hyper.keepCheckpoints = 1000;
  if (overrides.lr !== undefined) config.hyper.lr = overrides.lr;
  if (overrides.batchSize !== undefined) config.hyper.batchSize = overrides.batchSize;
  const baseCheckpoint = path.resolve(overrides.checkpoint);
  config.policy = { kind: "embedded", checkpoint: baseCheckpoint };
  config =
    overrides.gateK !== undefined ? gatedConfig(config, overrides.gateK, overrides.gateConfirm) : ungatedConfig(config);
  const { experiment: e, runId } = await lockstepExperiment(config, {
    slug: `bench-${method}-${randomBytes(3).toString("hex")}`,
    name: `learning bench (${method})`,
  });
  const key = await createApiKey(null, { name: "learning bench", scopes: ["proxy", "write", "identity"] });
  const proxy = await startProxy({ port: 0, host: "127.0.0.1", metricsIntervalMs: 3_600_000, log: () => {} });
  const judge = lockstepJudge(e.id);
  const trainer = new Trainer({});
  const client = new OpenAI({ apiKey: key.key, baseURL: `${proxy.url}/v1`, maxRetries: 0 });
  const t0 = performance.now();
  let last = t0;
  const stepMs: number[] = [];
  const kl: number[] = [];
  let lastCheckpoint: string | null = null;
  // Graded as each version goes live (not after the run), so a run cut by a deadline still reports what it reached.
  const firstReply: ChildResult["firstReply"] = [];
  const grade = async (version: number, checkpointPath: string, served = version) => {
    const m = (await loadCheckpoint(checkpointPath)).model;
    firstReply.push({
      version,
      ...(served !== version ? { served } : {}),
      ...(await firstReplyScore(m, settings.personas[0]!, {
        k: overrides.gradeK,
        maxTokens: config.serving.maxTokens,
      })),
    });
    disposeModel(m);
    emit({ type: "firstReply", method, ...firstReply.at(-1)! });
  };
  const checkpointOf = async (version: number) =>
    (await db().policyVersion.findFirst({ where: { experimentId: e.id, version }, select: { checkpointPath: true } }))
      ?.checkpointPath ?? null;
  try {
    await initBackend();
    await grade(0, baseCheckpoint);
    // The gate's set and the base's score on it (bench/lib/gate.ts): the persona's training questions.
    const gated =
      overrides.gateK === undefined ? null : await trainingQuestionGate(e.id, config, settings.personas[0]!);
    const done = await runLockstep({
      experimentId: e.id,
      slug: e.slug,
      runId,
      proxy,
      client,
      trainer,
      settings,
      steps,
      nonce: method,
      maxConversations,
      until,
      conversationsPerTick: overrides.conversationsPerTick,
      timeoutMs: 300_000,
      gate: gated?.gate,
      onStep: async (s) => {
        const now = performance.now();
        stepMs.push(now - last);
        last = now;
        kl.push(s.metrics["train/kl_loss"] ?? NaN);
        emit({
          type: "step",
          method,
          step: s.step,
          conversations: s.conversations,
          reward: s.metrics["rollout/reward_mean"] ?? null,
          evalScore: s.metrics["rollout/prm_eval_score"] ?? null,
          demos: s.metrics["samples/hindsight_demos"] ?? null,
          demoNll: s.metrics["train/demo_nll"] ?? null,
          gradNorm: s.metrics["train/grad_norm"] ?? null,
          // the KL to the base per step: k3 on the sampled tokens, and the exact one when baseKlCoef > 0 trains it
          kl: s.metrics["train/kl_loss"] ?? null,
          klBase: s.metrics["train/kl_base"] ?? null,
          entropy: s.metrics["train/entropy"] ?? null,
          ms: Math.round(stepMs.at(-1)!),
          // with a gate: the version served after the step, and why the step's own was held back (null: promoted)
          ...(gated ? { served: s.served, gateHeld: gated.held(s.version) } : {}),
        });
        // Graded after each fixed step: the version then served (with a gate, maybe an earlier one, or the base).
        if (GRADED_VERSIONS.includes(s.version)) {
          const served = s.served === 0 ? baseCheckpoint : await checkpointOf(s.served);
          if (served) await grade(s.version, served, s.served);
        }
        // the next step's time excludes the grading
        last = performance.now();
      },
    });
    const admin: Principal = {
      kind: "apiKey",
      keyId: "bench",
      prefix: "bench",
      scopes: ["admin"],
      experimentId: null,
      runId: null,
      createdById: null,
    };
    const progress = await simulationProgress(admin, { experimentId: e.id, versions: 500 });
    lastCheckpoint =
      (
        await db().policyVersion.findFirst({
          where: { experimentId: e.id, status: "ACTIVE" },
          orderBy: { version: "desc" },
        })
      )?.checkpointPath ?? null;
    const lastStep = done.at(-1);
    if (lastStep && !firstReply.some((f) => f.version === lastStep.version)) {
      const checkpoint = lastStep.served === 0 ? baseCheckpoint : await checkpointOf(lastStep.served);
      if (checkpoint) await grade(lastStep.version, checkpoint, lastStep.served);
    }
    const finalModel = (await loadCheckpoint(lastCheckpoint ?? baseCheckpoint)).model;
    const [final] = await measureCompliance(finalModel, { samples: 32, personas: [settings.personas[0]!] });
    disposeModel(finalModel);
    const tail = kl.slice(-10).filter(Number.isFinite);
    const result: ChildResult = {
      method,
      steps: done.length,
      conversations: done.at(-1)?.conversations ?? 0,
      wallS: (performance.now() - t0) / 1000,
      versions: progress.versions.map((v) => ({ version: v.version, turns: v.turns, reward: v.reward })),
      stepMs,
      klToBase: tail.reduce((a, b) => a + b, 0) / Math.max(tail.length, 1),
      final: final!,
      byPosition: await rewardByPosition(e.id, Math.max(0, done.length - window + 1)),
      firstReply,
    };
    emit({ type: "result", ...result });
  } finally {
    trainer.close();
    await judge.close();
    await proxy.close();
    await closeQueues();
    await db().$disconnect();
  }
}
