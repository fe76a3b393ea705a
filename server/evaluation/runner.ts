// One evaluation: policy version × eval set version. k replies per item with the experiment's fixed
// evaluation sampling settings and per-(item, reply) seeds (the same seeds for every version, so two
// versions answer the same draws; the gate's fresh draws, serving.gate.confirm, other ones), generated through the same upstream factory the proxy uses — a
// separate engine instance in this worker process for the embedded policy, the same HTTP server for
// SGLang/vLLM/OpenAI — then graded and stored reply by reply. An interrupted evaluation resumes where it
// stopped (scores are unique per item and reply); the budget bounds reply tokens and wall time per version.
import { db, type Prisma } from "../platform/db/client";
import { publish } from "../platform/bus/pubsub";
import { createUpstream, type UpstreamFactory } from "../proxy/upstreams/factory";
import type { Upstream } from "../proxy/upstreams/types";
import { graderFor } from "./grader";
import { GradeError, type Grader, type GradeItem } from "./grader/types";
import { applyGate } from "./gate";
import { evaluationConfig } from "./config";
import { summarize } from "./stats";

export interface RunnerDeps {
  upstreamFactory?: UpstreamFactory;
  signal?: AbortSignal;
  log?: (...args: unknown[]) => void;
  /** overrides the config's grader (tests) */
  grader?: Grader;
}

/** A reply's seed, wrapped into the stored 32-bit seed (whatever the configured one). */
export const seedFor = (base: number, index: number, k: number, sample: number) =>
  (base + index * k + sample) % 2 ** 31;

/**
 * The base seed of draw `draw`: draw 0 is the configured seed; each further draw (the gate's fresh seeds,
 * serving.gate.confirm) another range of a million, wrapped into the stored 32-bit seed.
 */
export const drawSeed = (seed: number, draw: number) => (seed + draw * 1_000_003) % 2 ** 31;

/**
 * The weights that answer as `version`: its checkpoint (embedded; version 0 is the config's base), or the
 * external upstream's current weights when it serves that version — an external upstream cannot load another.
 */
export async function versionWeights(
  experimentId: string,
  config: { policy: { kind: string } },
  version: number,
): Promise<{ checkpointPath: string | null } | { error: string }> {
  if (version === 0) return { checkpointPath: null };
  const pv = await db().policyVersion.findUnique({ where: { experimentId_version: { experimentId, version } } });
  if (!pv) return { error: `version ${version} does not exist` };
  if (config.policy.kind === "embedded") {
    if (!pv.checkpointPath) return { error: `version ${version}'s checkpoint was pruned before it was evaluated` };
    return { checkpointPath: pv.checkpointPath };
  }
  if (pv.status !== "ACTIVE")
    return {
      error: `an external ${config.policy.kind} upstream serves only its current weights: version ${version} is not the one served`,
    };
  return { checkpointPath: null };
}

type Finish = { status: "DONE" | "PARTIAL" | "FAILED"; error?: string | null };

async function finish(
  evaluationId: string,
  f: Finish,
  extra: { durationMs: number; promptTokens: number; replyTokens: number },
) {
  const scores = await db().evalScore.findMany({
    where: { evaluationId },
    select: { itemId: true, score: true, detail: true },
  });
  const byItem = new Map<string, number[]>();
  for (const s of scores) {
    if ((s.detail as { error?: string } | null)?.error) continue; // ungraded replies do not count
    byItem.set(s.itemId, [...(byItem.get(s.itemId) ?? []), s.score]);
  }
  const sum = summarize(byItem);
  return db().evaluation.update({
    where: { id: evaluationId },
    data: {
      status: f.status,
      error: f.error ?? null,
      items: sum.items,
      replies: scores.length,
      mean: sum.mean,
      ciLow: sum.ciLow,
      ciHigh: sum.ciHigh,
      durationMs: extra.durationMs,
      promptTokens: extra.promptTokens,
      replyTokens: extra.replyTokens,
      finishedAt: new Date(),
    },
  });
}

/**
 * Evaluate `version` of an experiment on `setVersionId` on draw `draw` of seeds (0: the common one; ≥ 1: the gate's
 * fresh draws, serving.gate.confirm). Returns the evaluation row, or null when there is nothing to do.
 */
export async function evaluateVersion(
  experimentId: string,
  version: number,
  setVersionId: string,
  deps: RunnerDeps = {},
  draw = 0,
) {
  const log = deps.log ?? (() => {});
  const config = await evaluationConfig(experimentId);
  if (!config) return null;
  const ev = config.evaluation;
  const sv = await db().evalSetVersion.findUnique({
    where: { id: setVersionId },
    include: { items: { orderBy: { index: "asc" } } },
  });
  if (!sv) return null;
  const grader = deps.grader ?? (await graderFor(config));
  const settings = {
    k: ev.k,
    temperature: ev.temperature,
    seed: drawSeed(ev.seed, draw),
    maxTokens: ev.maxTokens,
    budget: ev.budget,
    set: sv.setId,
    setVersion: sv.version,
  };

  const key = {
    experimentId_policyVersion_setVersionId_draw: { experimentId, policyVersion: version, setVersionId, draw },
  };
  let row = await db().evaluation.findUnique({ where: key });
  if (row && (row.status === "DONE" || row.status === "PARTIAL")) return row;
  if (row && row.graderVersion !== grader.version) {
    await db().evalScore.deleteMany({ where: { evaluationId: row.id } }); // a changed grader starts over
  }
  row = await db().evaluation.upsert({
    where: key,
    create: {
      experimentId,
      policyVersion: version,
      setVersionId,
      draw,
      status: "RUNNING",
      grader: grader.name,
      graderVersion: grader.version,
      settings: settings as Prisma.InputJsonValue,
      startedAt: new Date(),
    },
    update: {
      status: "RUNNING",
      grader: grader.name,
      graderVersion: grader.version,
      settings: settings as Prisma.InputJsonValue,
      error: null,
      startedAt: new Date(),
    },
  });
  const spent = { durationMs: row.durationMs, promptTokens: row.promptTokens, replyTokens: row.replyTokens };
  const fail = async (error: string) => {
    log(`evaluation of v${version}: ${error}`);
    return finish(row.id, { status: "FAILED", error }, spent);
  };

  const cannot = sv.items.map((it) => grader.cannotGrade(it as GradeItem)).find((r) => r !== null);
  if (cannot) return fail(cannot);
  const weights = await versionWeights(experimentId, config, version);
  if ("error" in weights) return fail(weights.error);
  const { checkpointPath } = weights;

  const done = new Set(
    (await db().evalScore.findMany({ where: { evaluationId: row.id }, select: { itemId: true, sample: true } })).map(
      (s) => `${s.itemId}:${s.sample}`,
    ),
  );
  const factory = deps.upstreamFactory ?? createUpstream;
  let upstream: Upstream | null = null;
  const started = performance.now();
  const elapsed = () => spent.durationMs + (performance.now() - started);
  let status: Finish["status"] = "DONE";
  try {
    upstream = factory({
      policy: config.policy,
      checkpointPath,
      version,
      timeoutMs: 120_000,
      defaultMaxTokens: ev.maxTokens,
    });
    outer: for (const item of sv.items) {
      for (let s = 0; s < ev.k; s++) {
        if (done.has(`${item.id}:${s}`)) continue;
        if (deps.signal?.aborted) throw new Error("evaluation interrupted (worker stopping)");
        if (spent.replyTokens >= ev.budget.maxReplyTokens || elapsed() >= ev.budget.maxSeconds * 1000) {
          status = "PARTIAL";
          break outer;
        }
        const seed = seedFor(drawSeed(ev.seed, draw), item.index, ev.k, s);
        const t0 = performance.now();
        const resp = await upstream.send({
          body: { messages: item.messages, max_tokens: ev.maxTokens, temperature: ev.temperature, top_p: 1, seed },
          stream: false,
          signal: deps.signal ?? new AbortController().signal,
        });
        if (resp.kind !== "json")
          throw new Error(
            resp.kind === "error"
              ? `upstream answered ${resp.status}: ${JSON.stringify(resp.body).slice(0, 300)}`
              : "upstream streamed a non-stream request",
          );
        const choice = (resp.body.choices as { message?: { content?: string | null } }[] | undefined)?.[0];
        const reply = choice?.message?.content ?? "";
        const usage = (resp.body.usage ?? {}) as { prompt_tokens?: number; completion_tokens?: number };
        const replyTokens = usage.completion_tokens ?? 0;
        spent.promptTokens += usage.prompt_tokens ?? 0;
        spent.replyTokens += replyTokens;
        let graded: { score: number; detail?: Record<string, unknown> };
        try {
          graded = await grader.grade(item as GradeItem, reply, deps.signal);
        } catch (err) {
          if (!(err instanceof GradeError)) throw err;
          graded = { score: 0, detail: { error: err.message } };
        }
        await db().evalScore.create({
          data: {
            evaluationId: row.id,
            itemId: item.id,
            sample: s,
            seed,
            reply,
            score: graded.score,
            grader: grader.name,
            graderVersion: grader.version,
            detail: (graded.detail ?? undefined) as Prisma.InputJsonValue | undefined,
            replyTokens,
            latencyMs: Math.round(performance.now() - t0),
          },
        });
        await db().evaluation.update({
          where: { id: row.id },
          data: { durationMs: Math.round(elapsed()), promptTokens: spent.promptTokens, replyTokens: spent.replyTokens },
        });
      }
    }
  } catch (err) {
    spent.durationMs = Math.round(elapsed());
    await db().evaluation.update({
      where: { id: row.id },
      data: { ...spent, status: "FAILED", error: err instanceof Error ? err.message : String(err) },
    });
    throw err;
  } finally {
    await upstream?.close().catch(() => {});
  }
  spent.durationMs = Math.round(elapsed());
  const result = await finish(row.id, { status }, spent);
  log(
    `evaluation of v${version} on set v${sv.version}${draw ? ` (draw ${draw})` : ""}: ${status.toLowerCase()}, mean ${result.mean?.toFixed(3) ?? "—"} over ${result.items} items, ${spent.replyTokens} reply tokens, ${spent.durationMs} ms`,
  );
  if (draw === 0) await recordScoreMetric(experimentId, version, result.mean);
  const gate = await applyGate(experimentId, config, setVersionId);
  await publish("evaluation", {
    experimentId,
    version,
    status: result.status,
    mean: result.mean,
    promoted: gate.promoted,
  }).catch(() => {});
  return result;
}

/** eval/score as a metric point at the version's training step, so the Metrics page can chart it too. */
async function recordScoreMetric(experimentId: string, version: number, mean: number | null) {
  if (mean === null) return;
  const pv =
    version > 0
      ? await db().policyVersion.findUnique({
          where: { experimentId_version: { experimentId, version } },
          select: { runId: true, step: true },
        })
      : null;
  const point = { name: "eval/score", value: mean, step: pv?.step ?? 0 };
  await db().metricPoint.create({ data: { experimentId, runId: pv?.runId ?? null, ...point } });
  await publish("metrics", { experimentId, runId: pv?.runId ?? null, points: [{ ...point, ts: Date.now() }] }).catch(
    () => {},
  );
}
