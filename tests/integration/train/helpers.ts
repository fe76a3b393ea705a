// Fixtures for the trainer tests: turns served by the proxy's own embedded upstream (so prompt rendering,
// token ids and behaviour log-probs are real) and recorded in the proxy's compact form, judgments and labels,
// and a subscriber that collects what the trainer publishes (experiments, runs, Redis and data-dir isolation
// and polling come from tests/helpers; the tiny base checkpoint from bench/lib/baseCheckpoint).
import { db } from "../../../server/platform/db/client";
import { splitSystem } from "../../../server/recording/compact";
import { pgSafeText } from "../../../server/proxy/recorder/sql";
import { EmbeddedUpstream } from "../../../server/proxy/upstreams/embedded";
import type { ChannelName, ChannelPayload } from "../../../server/platform/bus/contracts";
import { subscribe } from "../../../server/platform/bus/pubsub";
import { makeTurn, storeBlob } from "../../helpers/turns";

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
  const body: Record<string, unknown> = {
    messages: spec.messages,
    max_tokens: spec.maxTokens ?? 12,
    seed: spec.seed,
    temperature: spec.temperature ?? 1,
  };
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
export async function serveTurn(
  upstream: EmbeddedUpstream,
  spec: ServeSpec,
): Promise<{ turnId: string; served: Served }> {
  const served = await serve(upstream, spec);
  return { turnId: await recordTurn(spec, served), served };
}

export async function recordTurn(spec: Omit<ServeSpec, "seed">, served: Served): Promise<string> {
  const { system, body } = splitSystem(spec.messages);
  return makeTurn({
    experimentId: spec.experimentId,
    runId: spec.runId ?? null,
    systemHash: system ? await storeBlob("system", system) : null,
    toolsHash: spec.tools?.length ? await storeBlob("tools", spec.tools) : null,
    request: body,
    content: pgSafeText(served.content), // as the proxy's recorder stores it
    tokenIds: served.tokenIds,
    logprobs: served.logprobs,
    promptTokens: served.promptTokens,
    completionTokens: served.tokenIds.length,
    policyVersion: served.policyVersion,
    next: spec.next,
    createdAt: spec.createdAt,
  });
}

export async function label(
  turnId: string,
  source: "REVIEWER" | "USER",
  value: number,
  extra: { hint?: string; exclude?: boolean } = {},
): Promise<string> {
  const row = await db().label.create({
    data: { turnId, source, value, hint: extra.hint ?? null, exclude: extra.exclude ?? null },
  });
  return row.id;
}

/** Everything published on a channel while the returned collector is open. */
export async function collect<C extends ChannelName>(
  channel: C,
): Promise<{ messages: ChannelPayload<C>[]; close: () => Promise<void> }> {
  const messages: ChannelPayload<C>[] = [];
  const close = await subscribe(channel, (m) => messages.push(m));
  return { messages, close };
}
