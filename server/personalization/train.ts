// Training and gating one user's adapter: new version = the served version (or a fresh adapter) stepped on the
// user's new trainable samples, then the per-user gate on the user's held-out turns decides whether it serves.
import { createHash } from "node:crypto";
import path from "node:path";
import type { ExperimentConfig } from "../config/experimentConfig";
import { ExperimentConfigSchema } from "../config/experimentConfig";
import { initBackend } from "../engine/backend";
import { loadCheckpoint, loadPromptPool } from "../engine/checkpoint";
import {
  adaptedParams,
  attentionAndMlpTargets,
  createAdapter,
  defaultTargets,
  deserializeAdapter,
  disposeAdapter,
  serializeAdapter,
  type LoraAdapter,
} from "../engine/lora";
import type { AdapterSample } from "../engine/loraTrain";
import type { PolicyModel } from "../engine/model";
import { scoreBatch } from "../engine/score";
import { db } from "../platform/db/client";
import { notFound } from "../platform/errors";
import { adapterOwners, isHeldOut, turnsOf, userSamples } from "./data";
import { announceAdapterChange } from "./announce";
import { heldOutScore, passesGate } from "./gateScore";
import { userAdapterStep, withUserHints } from "./step";

/**
 * A user's seed: the same user and experiment (or the same `perUser.seed`) always start from the same fresh adapter
 * and sample the same demonstrations (reproducible runs).
 */
function userSeed(experimentId: string, endUserId: string, seed?: number): number {
  const run = seed === undefined ? experimentId : `seed:${seed}`;
  return createHash("sha256").update(`${run}\u0000${endUserId}`).digest().readUInt32BE(0);
}

/** The gate's score (gateScore.ts heldOutScore) of the base with `adapter` (null: the base alone) on held-out turns. */
export function preferenceScore(base: PolicyModel, adapter: LoraAdapter | null, heldOut: readonly AdapterSample[]) {
  if (!heldOut.length) return null;
  const params = adapter ? adaptedParams(base.params, adapter) : base.params;
  try {
    const lps = scoreBatch({ config: base.config, params }, heldOut);
    return heldOutScore(lps.map((logprobs, i) => ({ reward: heldOut[i].reward, logprobs })));
  } finally {
    if (adapter) for (const n of adapter.pairs.keys()) params[n].dispose();
  }
}

export type TrainUserResult =
  | { trained: false; reason: "too_few_samples" | "trained_concurrently"; samples: number; needed: number }
  | {
      trained: true;
      adapterId: string;
      version: number;
      state: "PROMOTED" | "REJECTED";
      samples: number;
      /** hindsight demonstrations trained beside the samples */
      demos: number;
      evalScore: number | null;
      servedScore: number | null;
    };

/**
 * Train one new version of `endUserId`'s adapter from that user's samples only (data.ts; for EVERYONE, the shared
 * adapter for new users, every user's samples, gated on every user's held-out turns) and gate it. Samples
 * are the oldest `maxSamplesPerVersion` after the newest version's `throughAt`, held-out turns excluded; the step
 * count is one SGD step per `minSamples` of them (a remainder short of a step waits for the next version), each with
 * the hindsight demonstrations of its hinted turns (step.ts). With `heldOutFraction` 0 the gate is off (every
 * version is promoted).
 */
export async function trainUser(
  experimentId: string,
  endUserId: string,
  base: PolicyModel,
  config: ExperimentConfig,
): Promise<TrainUserResult> {
  const pu = config.perUser;
  const [served, latest] = await Promise.all([
    db().userAdapter.findFirst({ where: { experimentId, endUserId, state: "PROMOTED" }, orderBy: { version: "desc" } }),
    db().userAdapter.findFirst({ where: { experimentId, endUserId }, orderBy: { version: "desc" } }),
  ]);
  const all = await userSamples(experimentId, endUserId);
  const after = latest?.throughAt?.getTime() ?? null;
  const isFresh = (s: { createdAt: Date }) => after === null || s.createdAt.getTime() > after;
  const fresh = all.filter(isFresh);
  // Each trainable sample with this user's latest earlier hint (rememberedHint), from their trainable turns only.
  const pending = withUserHints(all.filter((s) => !isHeldOut(s.turnId, pu.heldOutFraction))).filter(isFresh);
  if (pending.length < pu.minSamples)
    return { trained: false, reason: "too_few_samples", samples: pending.length, needed: pu.minSamples };
  // One SGD step per `minSamples` samples, at most `maxSamplesPerVersion` of the oldest (one step of them all when
  // the cap is below a step). A remainder short of a step waits for the next version with the backlog beyond the
  // cap: a version covering it would count it trained without a step ever seeing it.
  const capped = oldestBatch(pending, pu.maxSamplesPerVersion);
  const steps = Math.max(1, Math.floor(capped.length / pu.minSamples));
  const trainable = oldestBatch(capped, Math.min(capped.length, steps * pu.minSamples));
  // The version covers every fresh turn up to its last sample (held-out ones too, never trained anyway).
  const throughAt = trainable.length < pending.length ? trainable.at(-1)!.createdAt : fresh.at(-1)!.createdAt;

  const seed = userSeed(experimentId, endUserId, pu.seed);
  const parent = served ? deserializeAdapter(new Uint8Array(served.weights), base.config) : null;
  let adapter =
    parent ??
    createAdapter(
      base.config,
      {
        rank: pu.rank,
        alpha: pu.alpha,
        targets: pu.targets === "attention" ? defaultTargets(base.config) : attentionAndMlpTargets(base.config),
      },
      seed,
    );
  const version = (latest?.version ?? 0) + 1;
  const promptPool = pu.stylePrompts > 0 ? await basePromptPool(config) : [];
  let demos = 0;
  for (let k = 0; k < steps; k++) {
    const i = k * pu.minSamples;
    // The last step also takes the samples oldestBatch kept beside its last one (equal timestamps).
    const batch = trainable.slice(i, k === steps - 1 ? trainable.length : i + pu.minSamples);
    // Demonstrations are sampled per step with a seed of this user, version and step: a retrained version is the same.
    const step = await userAdapterStep(base, adapter, batch, pu, {
      maxTokens: config.serving.maxTokens,
      seed: (seed + version * 1009 + i) >>> 0,
      promptPool,
    });
    demos += step.demos;
    if (adapter !== parent) disposeAdapter(adapter);
    adapter = step.adapter;
    // One step is the longest this holds the event loop: the worker's shared training loop runs in between.
    await new Promise((resolve) => setImmediate(resolve));
  }

  const heldOut = pu.heldOutFraction > 0 ? all.filter((s) => isHeldOut(s.turnId, pu.heldOutFraction)) : [];
  const evalScore = preferenceScore(base, adapter, heldOut);
  const servedScore = preferenceScore(base, parent, heldOut);
  const promote = pu.heldOutFraction === 0 || passesGate(evalScore, servedScore, pu.gateTolerance);
  const weights = serializeAdapter(adapter);
  disposeAdapter(adapter);
  if (parent) disposeAdapter(parent);

  const meanReward = trainable.reduce((s, x) => s + x.reward, 0) / trainable.length;
  // Two trainers may take the same user at once (the worker's tick and "train due users", or two workers): the
  // version number is unique per user, so the second one's insert fails and its transaction rolls back whole;
  // it trained the same samples, so nothing is lost by dropping it.
  const row = await db()
    .$transaction(async (tx) => {
      if (promote && served)
        await tx.userAdapter.update({ where: { id: served.id }, data: { state: "SUPERSEDED", decidedAt: new Date() } });
      return tx.userAdapter.create({
        data: {
          experimentId,
          endUserId,
          version,
          parentId: served?.id ?? null,
          rank: pu.rank,
          alpha: pu.alpha,
          state: promote ? "PROMOTED" : "REJECTED",
          weights: Buffer.from(weights),
          samples: trainable.length,
          throughAt,
          evalScore,
          servedScore,
          meanReward,
          decidedAt: new Date(),
        },
      });
    })
    .catch((e: unknown) => {
      if ((e as { code?: unknown }).code === "P2002") return null;
      throw e;
    });
  if (!row) return { trained: false, reason: "trained_concurrently", samples: trainable.length, needed: pu.minSamples };
  if (promote) announceAdapterChange(experimentId, endUserId);
  return {
    trained: true,
    adapterId: row.id,
    version: row.version,
    state: promote ? "PROMOTED" : "REJECTED",
    samples: trainable.length,
    demos,
    evalScore,
    servedScore,
  };
}

/**
 * The oldest `max` samples, extended over samples sharing the last one's timestamp: the next version starts after
 * that timestamp, so cutting between equal ones would skip a sample for good.
 */
export function oldestBatch<T extends { createdAt: Date }>(samples: readonly T[], max: number): T[] {
  let n = Math.min(max, samples.length);
  while (n < samples.length && samples[n].createdAt.getTime() === samples[n - 1].createdAt.getTime()) n++;
  return samples.slice(0, n);
}

/** What the scheduler needs of one user: their trainable samples not yet in a version, and when they last spoke. */
export async function userBacklog(experimentId: string, endUserId: string, config: ExperimentConfig) {
  const [latest, lastTurn] = await Promise.all([
    db().userAdapter.findFirst({
      where: { experimentId, endUserId },
      orderBy: { version: "desc" },
      select: { throughAt: true, createdAt: true },
    }),
    db().turn.findFirst({
      where: { experimentId, ...turnsOf(endUserId) },
      orderBy: { createdAt: "desc" },
      select: { createdAt: true },
    }),
  ]);
  const pending = (await userSamples(experimentId, endUserId, { after: latest?.throughAt ?? null })).filter(
    (s) => !isHeldOut(s.turnId, config.perUser.heldOutFraction),
  );
  return {
    pending: pending.length,
    waitingSince: pending[0]?.createdAt ?? null,
    lastTrainedAt: latest?.createdAt ?? null,
    lastTurnAt: lastTurn?.createdAt ?? null,
  };
}

/** One load per checkpoint folder and process, shared by every caller; a failed load is tried again next time. */
function loadedOnce<T>(cache: Map<string, Promise<T>>, dir: string, load: () => Promise<T>): Promise<T> {
  let p = cache.get(dir);
  if (!p) {
    p = load();
    p.catch(() => cache.delete(dir));
    cache.set(dir, p);
  }
  return p;
}

const bases = new Map<string, Promise<PolicyModel>>();

/** The experiment's frozen base, loaded once per process (per-user experiments never train it). */
export function baseModel(config: ExperimentConfig): Promise<PolicyModel> {
  if (config.policy.kind !== "embedded") throw new Error("per-user adapters need the embedded policy");
  const dir = path.resolve(config.policy.checkpoint);
  return loadedOnce(bases, dir, () =>
    initBackend()
      .then(() => loadCheckpoint(dir))
      .then((c) => c.model),
  );
}

const pools = new Map<string, Promise<string[]>>();

/** The base checkpoint's prompt pool (prompts.json; none: an empty list), the style demonstrations' prompts. */
export function basePromptPool(config: ExperimentConfig): Promise<string[]> {
  if (config.policy.kind !== "embedded") return Promise.resolve([]);
  const dir = path.resolve(config.policy.checkpoint);
  return loadedOnce(pools, dir, () => loadPromptPool(dir));
}

/**
 * Every user of a per-user experiment with enough new samples gets one new adapter version (the scheduler's tick), and
 * so does the shared adapter for new users (EVERYONE) when the experiment serves one.
 */
export async function trainDueUsers(experimentId: string): Promise<Record<string, TrainUserResult>> {
  const e = await db().experiment.findUnique({ where: { id: experimentId }, select: { config: true } });
  if (!e) throw notFound("experiment", experimentId);
  const config = ExperimentConfigSchema.parse(e.config);
  // Adapters on SGLang/vLLM are PEFT folders registered per user (registerEndUserAdapter), not trained here.
  if (config.personalization !== "per-user" || config.policy.kind !== "embedded") return {};
  const base = await baseModel(config);
  const out: Record<string, TrainUserResult> = {};
  for (const user of await adapterOwners(experimentId, config.perUser.newUsers))
    out[user] = await trainUser(experimentId, user, base, config);
  return out;
}
