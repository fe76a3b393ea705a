// Fixtures for the trainer tests: a tiny base checkpoint, experiments and runs written with Prisma, turns
// served by the proxy's own embedded upstream (so prompt rendering, token ids and behaviour log-probs are
// real) and recorded in the proxy's compact form, judgments and labels, a per-file Redis prefix, and a
// subscriber that collects what the trainer publishes.
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { db, type Prisma } from "../../../server/platform/db/client";
import { initBackend } from "../../../server/engine/backend";
import { saveCheckpoint } from "../../../server/engine/checkpoint";
import { createModel, disposeModel, type ModelConfig } from "../../../server/engine/model";
import { VOCAB_SIZE } from "../../../server/engine/tokenizer";
import { ExperimentConfigSchema, type ExperimentConfigInput } from "../../../server/experiments/config";
import { blobOf, splitSystem } from "../../../server/recording/compact";
import { pgSafeText } from "../../../server/proxy/recorder/sql";
import { EmbeddedUpstream } from "../../../server/proxy/upstreams/embedded";
import type { ChannelName, ChannelPayload } from "../../../server/platform/bus/contracts";
import { subscribe } from "../../../server/platform/bus/pubsub";
import type { Principal } from "../../../server/access/principal";

export const uniq = (p = "t") => `${p}-${randomBytes(4).toString("hex")}`;

/** Small enough to train in well under a second on a 2-core box. */
export const TINY: ModelConfig = { vocabSize: VOCAB_SIZE, ctx: 96, nLayer: 1, nEmbd: 32, nHead: 2 };

/** Must run before anything touches Redis (env() is read once and cached). */
export function isolateRedis(name: string): string {
  const prefix = `${process.env.REDIS_PREFIX ?? "test:"}${name}-${randomBytes(3).toString("hex")}:`;
  process.env.REDIS_PREFIX = prefix;
  return prefix;
}

/** A per-file DATA_DIR (checkpoints go to <DATA_DIR>/checkpoints). */
export async function isolateDataDir(name: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `train-${name}-`));
  process.env.DATA_DIR = dir;
  return dir;
}

export async function makeBaseCheckpoint(dir: string, seed = 1, config: ModelConfig = TINY): Promise<string> {
  await initBackend();
  const model = createModel(config, seed);
  const target = path.join(dir, `base-${seed}`);
  await saveCheckpoint(target, model, { version: 0, step: 0 });
  disposeModel(model);
  return target;
}

export const admin: Principal = { kind: "apiKey", keyId: "train-test", prefix: "train", scopes: ["admin"], experimentId: null, createdById: null };

export async function makeExperiment(config: ExperimentConfigInput): Promise<{ id: string; config: ReturnType<typeof ExperimentConfigSchema.parse> }> {
  const parsed = ExperimentConfigSchema.parse(config);
  const e = await db().experiment.create({
    data: { slug: uniq("train"), name: "trainer test", config: parsed as unknown as Prisma.InputJsonValue },
    select: { id: true },
  });
  return { id: e.id, config: parsed };
}

export async function makeRun(experimentId: string, status: "PENDING" | "RUNNING" | "PAUSED" = "RUNNING"): Promise<string> {
  const e = await db().experiment.findUniqueOrThrow({ where: { id: experimentId } });
  const last = await db().run.findFirst({ where: { experimentId }, orderBy: { number: "desc" }, select: { number: true } });
  const run = await db().run.create({
    data: {
      experimentId,
      number: (last?.number ?? 0) + 1,
      config: e.config as Prisma.InputJsonValue,
      trainerBackend: "embedded",
      status,
      startedAt: status === "PENDING" ? null : new Date(),
    },
  });
  return run.id;
}

export type Message = { role: string; content: string };

export interface ServeSpec {
  experimentId: string;
  runId?: string | null;
  messages: Message[];
  tools?: unknown[];
  maxTokens?: number;
  seed: number;
  temperature?: number;
  next?: Message | null;
  createdAt?: Date;
}

/** The proxy's embedded upstream on a checkpoint (version as the proxy would label it). */
export function upstreamFor(checkpointPath: string, version: number): EmbeddedUpstream {
  return new EmbeddedUpstream({ model: "embedded", checkpointPath, version, defaultMaxTokens: 16 });
}

interface Served {
  content: string;
  tokenIds: number[];
  logprobs: number[];
  promptTokens: number;
  policyVersion: number;
}

export async function serve(upstream: EmbeddedUpstream, spec: Omit<ServeSpec, "experimentId">): Promise<Served> {
  const body: Record<string, unknown> = { messages: spec.messages, max_tokens: spec.maxTokens ?? 12, seed: spec.seed, temperature: spec.temperature ?? 1 };
  if (spec.tools) body.tools = spec.tools;
  const resp = await upstream.send({ body, stream: false, signal: new AbortController().signal });
  if (resp.kind !== "json") throw new Error(`unexpected upstream answer ${resp.kind}`);
  const choice = (resp.body.choices as Record<string, unknown>[])[0];
  const usage = resp.body.usage as { prompt_tokens: number };
  return {
    content: (choice.message as { content: string }).content,
    tokenIds: choice.token_ids as number[],
    logprobs: (choice.logprobs as { content: { logprob: number }[] }).content.map((c) => c.logprob),
    promptTokens: usage.prompt_tokens,
    policyVersion: resp.policyVersion ?? 0,
  };
}

/** Serve one request and record it as the proxy does: its own session, system and tools as blobs. */
export async function serveTurn(upstream: EmbeddedUpstream, spec: ServeSpec): Promise<{ turnId: string; served: Served }> {
  const served = await serve(upstream, spec);
  return { turnId: await recordTurn(spec, served), served };
}

export async function recordTurn(spec: Omit<ServeSpec, "seed">, served: Served): Promise<string> {
  const { system, body } = splitSystem(spec.messages);
  const sys = system ? blobOf("system", system) : null;
  const tools = spec.tools?.length ? blobOf("tools", spec.tools) : null;
  for (const b of [sys, tools]) {
    if (b) await db().blob.upsert({ where: { hash: b.hash }, create: { ...b, content: b.content as Prisma.InputJsonValue }, update: {} });
  }
  const session = await db().agentSession.create({ data: { experimentId: spec.experimentId, externalId: uniq("sess") } });
  const next = spec.next === undefined ? { role: "user", content: "thanks!" } : spec.next;
  const turn = await db().turn.create({
    data: {
      requestId: uniq("req"),
      experimentId: spec.experimentId,
      sessionId: session.id,
      runId: spec.runId ?? null,
      index: 0,
      systemHash: sys?.hash ?? null,
      toolsHash: tools?.hash ?? null,
      messagesOffset: 0,
      messagesDelta: body as Prisma.InputJsonValue,
      content: pgSafeText(served.content), // as the proxy's recorder stores it
      tokenIds: served.tokenIds,
      logprobs: served.logprobs,
      promptTokens: served.promptTokens,
      completionTokens: served.tokenIds.length,
      policyVersion: served.policyVersion,
      nextState: next ? (next as Prisma.InputJsonValue) : undefined,
      nextStateRole: next?.role ?? null,
      nextStateAt: next ? new Date() : null,
      ...(spec.createdAt ? { createdAt: spec.createdAt } : {}),
    },
  });
  return turn.id;
}

export interface JudgmentSpec {
  score: number;
  evalScore?: number | null;
  hint?: string | null;
  hintAccepted?: boolean;
  teacherLogprobs?: number[];
  dispatch?: "RL" | "OPD" | "BOTH" | null;
  excluded?: boolean;
  excludeReason?: string | null;
}

export async function judge(turnId: string, j: JudgmentSpec): Promise<string> {
  const row = await db().judgment.create({
    data: {
      turnId,
      judgeVersion: uniq("jv"),
      judgeKind: "heuristic",
      model: "test",
      promptVersion: "test",
      score: j.score,
      evalScore: j.evalScore ?? null,
      hint: j.hint ?? null,
      hintAccepted: j.hintAccepted ?? false,
      teacherLogprobs: j.teacherLogprobs ?? [],
      dispatch: j.dispatch ?? null,
      excluded: j.excluded ?? false,
      excludeReason: j.excludeReason ?? null,
    },
  });
  return row.id;
}

export async function label(turnId: string, source: "REVIEWER" | "USER", value: number, extra: { hint?: string; exclude?: boolean } = {}): Promise<string> {
  const row = await db().label.create({ data: { turnId, source, value, hint: extra.hint ?? null, exclude: extra.exclude ?? false } });
  return row.id;
}

/** Everything published on a channel while the returned collector is open. */
export async function collect<C extends ChannelName>(channel: C): Promise<{ messages: ChannelPayload<C>[]; close: () => Promise<void> }> {
  const messages: ChannelPayload<C>[] = [];
  const close = await subscribe(channel, (m) => messages.push(m));
  return { messages, close };
}

/** Polls `fn` until it returns a truthy value or the deadline passes. */
export async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
