// Held-out evaluation of an environment experiment (`evaluation.tasks`): each policy version runs k episodes
// of every held-out task of the task set, the policy being THAT version's weights loaded here, in the evaluate
// worker, through the same upstream factory as the eval-set evaluation (runner.ts) — the proxy serves only
// the active version, so a candidate could not be evaluated through it. Each (task, sample, step) samples with
// the same seed for every version, so two versions face the same draws. The episodes are ordinary Episode rows
// pinned to the version (`policyVersion`): the episode worker never claims them, they have no group and no
// recorded turns, and they never train. A version's held-out pass@1 (passes / attempts, Wilson interval) is
// what the promotion gate reads; pass@k (unbiased, per task) goes with it on the Evaluation page.
import { db } from "../platform/db/client";
import { publish } from "../platform/bus/pubsub";
import type { ExperimentConfig } from "../config/experimentConfig";
import { createUpstream } from "../proxy/upstreams/factory";
import type { Upstream } from "../proxy/upstreams/types";
import { executeEpisode, type AssistantMessage, type PolicyCaller } from "../environments/episodes/runner";
import { evaluationConfig } from "./config";
import { seedFor, versionWeights, type RunnerDeps } from "./runner";
import { gateOnTasks, taskEvaluationTarget, versionPassRates } from "./taskRates";

/** The id of a version's k-th episode of a task: creating them again is a no-op. */
const episodeId = (taskSetVersionId: string, version: number, taskIndex: number, sample: number) =>
  `ev-${taskSetVersionId}-v${version}-${taskIndex}-${sample}`;

/** Steps per episode stay below this, so (episode seed, step) never collide across episodes. */
const SEED_STRIDE = 64;

/** A pinned version's policy: one upstream call per step, seeded per (episode, step), nothing recorded. */
function pinnedPolicy(upstream: Upstream, seed: number, ev: ExperimentConfig["evaluation"]): PolicyCaller {
  return async ({ step, messages, tools, maxTokens, signal }) => {
    const resp = await upstream.send({
      body: {
        messages,
        ...(tools.length ? { tools } : {}),
        ...(maxTokens !== null ? { max_tokens: maxTokens } : {}),
        temperature: ev.temperature,
        top_p: 1,
        seed: seed * SEED_STRIDE + step,
      },
      stream: false,
      signal: signal ?? new AbortController().signal,
    });
    if (resp.kind !== "json")
      throw new Error(
        resp.kind === "error"
          ? `the policy answered ${resp.status}: ${JSON.stringify(resp.body).slice(0, 300)}`
          : "the policy streamed a non-stream request",
      );
    const choice = (
      resp.body.choices as { message?: AssistantMessage; finish_reason?: string | null }[] | undefined
    )?.[0];
    if (!choice?.message) throw new Error("the policy's answer has no choices[0].message");
    const usage = (resp.body.usage ?? {}) as { completion_tokens?: number };
    return {
      message: choice.message,
      turnId: null,
      completionTokens: usage.completion_tokens ?? 0,
      cut: choice.finish_reason === "length",
    };
  };
}

/**
 * Runs the version's held-out episodes that have not ended (an interrupted evaluation resumes: ended ones
 * stay), then applies the gate. Returns the version's pass rates, or null when the experiment has no target.
 */
export async function evaluateVersionOnTasks(
  experimentId: string,
  version: number,
  taskSetVersionId: string,
  deps: RunnerDeps = {},
) {
  const log = deps.log ?? (() => {});
  const config = await evaluationConfig(experimentId);
  const tasksConfig = config?.evaluation.tasks;
  if (!config || !tasksConfig) return null;
  const target = await taskEvaluationTarget(experimentId, tasksConfig);
  if (!target || target.setVersion.id !== taskSetVersionId) return null;
  const { environment } = target;
  if (environment.provider === "remote-pool" || environment.harness !== null)
    throw new Error(`environment ${environment.name}: held-out evaluation runs our own agent loop only`);
  const weights = await versionWeights(experimentId, config, version);
  if ("error" in weights) throw new Error(weights.error);
  const ev = config.evaluation;
  const k = tasksConfig.k;

  const tasks = await db().task.findMany({
    where: { setVersionId: taskSetVersionId, split: "heldout" },
    orderBy: { index: "asc" },
  });
  await db().episode.createMany({
    data: tasks.flatMap((t) =>
      Array.from({ length: k }, (_, s) => ({
        id: episodeId(taskSetVersionId, version, t.index, s),
        experimentId,
        environmentId: environment.id,
        taskId: t.id,
        sampleIndex: s,
        maxSteps: tasksConfig.maxSteps,
        policyVersion: version,
      })),
    ),
    skipDuplicates: true,
  });
  const open = await db().episode.findMany({
    where: {
      experimentId,
      policyVersion: version,
      task: { setVersionId: taskSetVersionId },
      status: { in: ["QUEUED", "RUNNING"] },
    },
    select: { id: true, sampleIndex: true, task: { select: { index: true } } },
    orderBy: [{ task: { index: "asc" } }, { sampleIndex: "asc" }],
  });
  let upstream: Upstream | null = null;
  try {
    upstream = (deps.upstreamFactory ?? createUpstream)({
      policy: config.policy,
      checkpointPath: weights.checkpointPath,
      version,
      timeoutMs: 120_000,
      defaultMaxTokens: ev.maxTokens,
    });
    for (const e of open) {
      deps.signal?.throwIfAborted();
      // Claimed again from scratch: a RUNNING one is left from an interrupted attempt of this evaluation.
      const now = new Date();
      await db().episode.update({
        where: { id: e.id },
        data: { status: "RUNNING", attempts: { increment: 1 }, startedAt: now, heartbeatAt: now, error: null },
      });
      await db().episodeStep.deleteMany({ where: { episodeId: e.id } });
      const seed = seedFor(ev.seed, e.task.index, k, e.sampleIndex ?? 0);
      try {
        await executeEpisode(e.id, { agent: pinnedPolicy(upstream, seed, ev), signal: deps.signal });
      } catch (err) {
        if (deps.signal?.aborted) throw err;
        log(`held-out episode ${e.id} of v${version} failed: ${(err as Error).message}`); // FAILED: not an attempt
      }
    }
  } finally {
    await upstream?.close().catch(() => {});
  }
  const rates = await versionPassRates(experimentId, taskSetVersionId, k);
  const mine = rates.find((r) => r.version === version) ?? null;
  log(
    `held-out evaluation of v${version}: pass@1 ${mine?.passAt1.mean?.toFixed(3) ?? "—"} over ${mine?.passAt1.n ?? 0} episodes`,
  );
  const gate = await gateOnTasks(experimentId, config, rates);
  await publish("evaluation", {
    experimentId,
    version,
    status: mine && mine.pending === 0 ? "DONE" : "PARTIAL",
    mean: mine?.passAt1.mean ?? null,
    promoted: gate.promoted,
  }).catch(() => {});
  return mine;
}
