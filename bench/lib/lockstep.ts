// The whole loop in lockstep, for reproducible measurements (bench/learning) and the end-to-end test: simulated
// users talk to a real proxy one conversation at a time; once the proxy has recorded a conversation and the judge
// worker has judged its turns, the trainer gets a tick; after each optimizer step the next conversation waits until
// the proxy serves the new version. The parts are the real ones (proxy, BullMQ judge, trainer); only the pacing is
// fixed, so the same seeds give the same conversations, judgments and steps.
import type OpenAI from "openai";
import type { ExperimentConfig } from "../../server/config/experimentConfig";
import { startJudgeWorker, type JudgeWorker } from "../../server/judge/worker/worker";
import { db, type Prisma } from "../../server/platform/db/client";
import type { ProxyServer } from "../../server/proxy/server";
import type { Trainer } from "../../server/training/loop";
import { proxyChat } from "../../server/simulation/client";
import { simulateConversation } from "../../server/simulation/runner";
import type { SimulationSettings } from "../../server/simulation/schemas";

/** An experiment with `config` and its RUNNING run 1 (embedded trainer): what a lockstep drives. */
export async function lockstepExperiment(
  config: ExperimentConfig,
  o: { slug: string; name: string; description?: string },
): Promise<{ experiment: { id: string; slug: string }; runId: string }> {
  const json = config as unknown as Prisma.InputJsonValue;
  const experiment = await db().experiment.create({
    data: { slug: o.slug, name: o.name, description: o.description ?? "", config: json },
    select: { id: true, slug: true },
  });
  const run = await db().run.create({
    data: {
      experimentId: experiment.id,
      number: 1,
      config: json,
      trainerBackend: "embedded",
      status: "RUNNING",
      startedAt: new Date(),
    },
  });
  return { experiment, runId: run.id };
}

/** The judge worker a lockstep waits on: the experiment's jobs only, no sweeper, no periodic metrics. */
export function lockstepJudge(experimentId: string, jobTimeoutMs = 120_000): JudgeWorker {
  return startJudgeWorker({
    concurrency: 4,
    lockDurationMs: 30_000,
    jobTimeoutMs,
    sweepIntervalMs: 0,
    sweepMinAgeMs: 30_000,
    failedRetryAfterMs: 600_000,
    metricsIntervalMs: 3_600_000,
    experimentIds: [experimentId],
  });
}

export interface LockstepOptions {
  experimentId: string;
  slug: string;
  runId: string;
  proxy: ProxyServer;
  /** an OpenAI client on the proxy with a key allowed to mark simulated traffic */
  client: OpenAI;
  trainer: Trainer;
  settings: SimulationSettings;
  /** optimizer steps to take */
  steps: number;
  /**
   * Conversations held between two trainer ticks (default 1). Above 1 the users outpace the trainer, which takes at
   * most one step per tick from the oldest samples, as in the live demo without pacing: batches of stale replies.
   */
  conversationsPerTick?: number;
  /** stop early after this many conversations (an OPD run trains only on corrected replies, which grow rare) */
  maxConversations?: number;
  /** session ids are `sim-<persona>-<nonce>-<k>` */
  nonce?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** no conversation starts after this time (epoch ms): a run cut by a deadline still ends cleanly at its last step */
  until?: number;
  /** awaited before the next conversation, so work done here (grading the new version) sees the loop paused */
  onStep?: (step: LockstepStep) => void | Promise<void>;
  /**
   * A gated experiment (serving.promotion "gated"): awaited after each step, whose version is a CANDIDATE until this
   * evaluates it and applies the gate; the next conversation then waits for whatever version is ACTIVE after it.
   * Without it every step must go live.
   */
  gate?: (step: { step: number; version: number }) => Promise<void>;
}

export interface LockstepStep {
  step: number;
  version: number;
  /** the version served after the step: `version`, or with a gate the one ACTIVE after it */
  served: number;
  /** conversations held so far */
  conversations: number;
  metrics: Record<string, number>;
}

async function waitFor(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (signal?.aborted) throw new Error(`aborted while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Every main turn the proxy recorded successfully has a judgment (the closing turn is judged too, excluded). */
async function allJudged(experimentId: string): Promise<boolean> {
  const [turns, judged] = await Promise.all([
    db().turn.count({ where: { experimentId, turnType: "MAIN", status: "OK" } }),
    db().turn.count({ where: { experimentId, turnType: "MAIN", status: "OK", judgments: { some: {} } } }),
  ]);
  return judged >= turns;
}

export async function runLockstep(o: LockstepOptions): Promise<LockstepStep[]> {
  const timeoutMs = o.timeoutMs ?? 120_000;
  const nonce = o.nonce ?? "lockstep";
  const steps: LockstepStep[] = [];
  let k = 0;
  const signal = o.signal ?? new AbortController().signal;
  while (steps.length < o.steps && k < (o.maxConversations ?? Infinity) && Date.now() < (o.until ?? Infinity)) {
    for (let i = 0; i < (o.conversationsPerTick ?? 1) && k < (o.maxConversations ?? Infinity); i++)
      await simulateConversation(
        o.settings,
        k++,
        nonce,
        (conv) => proxyChat(o.client, { model: o.slug, ...conv }),
        signal,
      );
    await o.proxy.writer.drain();
    await waitFor(`the judge on conversation ${k - 1}`, () => allJudged(o.experimentId), timeoutMs, signal);
    const { step } = await o.trainer.tick(o.runId);
    if (!step) continue;
    if (step.outcome !== (o.gate ? "CANDIDATE" : "ACTIVE"))
      throw new Error(
        `step ${step.step} was ${step.outcome}: lockstep expects every step to ${o.gate ? "await its gate" : "go live"}`,
      );
    await o.gate?.(step);
    const served = o.gate
      ? ((
          await db().policyVersion.findFirst({
            where: { experimentId: o.experimentId, status: "ACTIVE" },
            select: { version: true },
          })
        )?.version ?? 0)
      : step.version;
    await waitFor(
      `the proxy to serve version ${served}`,
      () => (o.proxy.experiments.get(o.experimentId)?.policyVersion ?? 0) === served,
      timeoutMs,
      signal,
    );
    const record = { step: step.step, version: step.version, served, conversations: k, metrics: step.metrics };
    steps.push(record);
    await o.onStep?.(record);
  }
  return steps;
}
