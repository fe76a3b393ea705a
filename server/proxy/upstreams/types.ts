// The policy backend behind the proxy. Two kinds implement it: any OpenAI-compatible HTTP server
// (SGLang, vLLM, Ollama, OpenAI) and the embedded engine. Both answer in OpenAI's wire format, so the
// proxy streams, strips and records them the same way.
import type { ServedAdapter } from "../../engine/adapterPool";

/** A per-user adapter version an engine serves from its PEFT folder. */
export interface EngineAdapter {
  /** the adapter row's id */
  id: string;
  path: string;
  /** whose it is (experiment and end user): a user served the base again (deleted, rolled back) has theirs unloaded */
  owner?: string;
}

export interface UpstreamRequest {
  /** The client's body without session fields; `model` is replaced by the upstream's own. */
  body: Record<string, unknown>;
  stream: boolean;
  signal: AbortSignal;
  /** The end user's adapter to answer with (per-user personalization; only the embedded upstream serves one). */
  adapter?: ServedAdapter;
  /** The end user's adapter on a multi-LoRA engine (SGLang/vLLM): its PEFT folder, loaded under its own name. */
  engineAdapter?: EngineAdapter;
}

/**
 * Why a user's promoted adapter did not answer and the base did, sent as `x-adapter-fallback`: the engine refused
 * to load it, or did not hold it even after loading it again; or the upstream cannot serve that kind of adapter
 * (weights without an embedded engine, a PEFT folder without policy.loraAdapters).
 */
export const ADAPTER_FALLBACKS = ["adapter_load_failed", "adapter_not_loaded", "adapter_unservable"] as const;
export type AdapterFallback = (typeof ADAPTER_FALLBACKS)[number];

/** What served a request that named an engine adapter: it, or the base for a reason. */
export type AdapterOutcome = { served: true } | { served: false; fallback: AdapterFallback };

export interface StreamChunk {
  json: Record<string, unknown>;
  /** The chunk's JSON text as received, forwarded unchanged when nothing in it must be stripped. */
  raw: string;
}

export type UpstreamResponse =
  | { kind: "json"; body: Record<string, unknown>; policyVersion?: number; adapter?: AdapterOutcome }
  | { kind: "stream"; chunks: AsyncIterable<StreamChunk>; policyVersion?: number; adapter?: AdapterOutcome }
  /** The upstream answered with an HTTP error (passed on: 4xx are the client's, 5xx become 502). */
  | { kind: "error"; status: number; body: unknown; retryAfter: string | null };

/** Connection refused/reset, or a broken stream. */
export class UpstreamUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UpstreamUnavailableError";
  }
}

/** No answer (or no next chunk) within the timeout. */
export class UpstreamTimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = "UpstreamTimeoutError";
  }
}

export interface Upstream {
  readonly kind: "openai" | "sglang" | "embedded";
  /** The model name the upstream serves (recorded per turn). */
  readonly model: string;
  send(req: UpstreamRequest): Promise<UpstreamResponse>;
  /** A new policy version is live: an embedded engine loads it (and keeps serving the old one meanwhile). */
  switchVersion?(version: number, checkpointPath: string | null): Promise<void>;
  /** A multi-LoRA engine: load a user's adapter now, before their next request (userLora.ts). */
  preloadAdapter?(adapter: EngineAdapter): Promise<void>;
  /** A multi-LoRA engine: unload every adapter of this owner (userLora.ts `release`). */
  releaseAdapters?(owner: string): Promise<void>;
  close(): Promise<void>;
}
