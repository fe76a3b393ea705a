// An OpenAI-compatible HTTP backend (SGLang, vLLM, Ollama, OpenAI). node:http with keep-alive instead of
// fetch: fewer allocations per request, and real pass-through of SSE chunks as they arrive.
// Log-probs are requested so behaviour log-probs (and token ids, where the server returns them) are
// recorded; a backend that rejects them is asked again without, and never again.
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { assertEgressAllowed, egressLookup } from "../../platform/egress";
import { settings } from "../../platform/env";
import { isNotLoaded, withAdapter } from "./lora";
import type { LoraServing } from "./loraServing";
import type { UserLoraRouter } from "./userLora";
import { SseParser } from "./sse";
import {
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  type AdapterFallback,
  type AdapterOutcome,
  type StreamChunk,
  type Upstream,
  type UpstreamRequest,
  type UpstreamResponse,
} from "./types";

export interface OpenAiHttpOptions {
  kind: "openai" | "sglang";
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Time to response headers, and the longest gap between two stream chunks. */
  timeoutMs: number;
  /** Trained versions served as LoRA adapters hot-loaded into this engine (loraServing.ts). */
  lora?: LoraServing;
  /** Per-user adapters hot-loaded into this engine, one per user's promoted version (userLora.ts). */
  userLora?: UserLoraRouter;
}

const EGRESS_RECHECK_MS = 60_000;

/** An upstream answer; an error answer whose body was read already carries it (a body is read once). */
interface Answer {
  res: IncomingMessage;
  errorText?: string;
}
const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 512 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 512 }),
};

export class OpenAiHttpUpstream implements Upstream {
  readonly kind: "openai" | "sglang";
  readonly model: string;
  private readonly url: URL;
  private logprobsSupported = true;
  private egressCheckedAt = 0;

  /** Present only when versions are LoRA adapters: the proxy's version switch loads the new one first. */
  readonly switchVersion?: (version: number, checkpointPath: string | null) => Promise<void>;
  /** Present only with per-user adapters on this engine. */
  readonly preloadAdapter?: Upstream["preloadAdapter"];
  readonly releaseAdapters?: Upstream["releaseAdapters"];
  /** A hostile or broken upstream cannot push the proxy out of memory (PROXY_MAX_UPSTREAM_BYTES, _SSE_EVENT_BYTES). */
  private readonly maxBytes: number;
  private readonly maxEventBytes: number;

  constructor(private readonly opts: OpenAiHttpOptions) {
    const limits = settings("proxy");
    this.maxBytes = limits.PROXY_MAX_UPSTREAM_BYTES;
    this.maxEventBytes = limits.PROXY_MAX_SSE_EVENT_BYTES;
    this.kind = opts.kind;
    this.model = opts.model;
    this.url = new URL(`${opts.baseUrl.replace(/\/+$/, "")}/chat/completions`);
    const lora = opts.lora;
    if (lora) this.switchVersion = (version, checkpointPath) => lora.switchTo(version, checkpointPath);
    const users = opts.userLora;
    if (users) {
      this.preloadAdapter = async (a) => void (await users.ensure(a));
      this.releaseAdapters = (owner) => users.release(owner);
    }
  }

  /** `userAdapter`: the engine-side name of the user's adapter, which replaces the shared version's. */
  private outgoing(req: UpstreamRequest, withLogprobs: boolean, userAdapter: string | null = null): string {
    const body: Record<string, unknown> = { ...req.body, model: this.model, stream: req.stream };
    if (withLogprobs && body.logprobs == null) {
      body.logprobs = true;
      // The reference asks SGLang for top_logprobs=1; the sampled token's log-prob is all we keep.
      body.top_logprobs = this.kind === "sglang" ? 1 : 0;
    }
    if (req.stream) body.stream_options = { ...((body.stream_options as object | null) ?? {}), include_usage: true };
    else delete body.stream_options;
    const shared = this.opts.lora ? this.opts.lora.body(body) : body;
    const engine = this.opts.userLora?.engine;
    return JSON.stringify(userAdapter && engine ? withAdapter(engine, shared, userAdapter) : shared);
  }

  /** The egress policy again at call time (names may resolve elsewhere since the config was saved); once a minute. */
  private async checkEgress(): Promise<void> {
    if (Date.now() - this.egressCheckedAt < EGRESS_RECHECK_MS) return;
    try {
      await assertEgressAllowed(this.url.toString());
    } catch (err) {
      throw new UpstreamUnavailableError(`egress refused: ${(err as Error).message}`);
    }
    this.egressCheckedAt = Date.now();
  }

  async send(req: UpstreamRequest): Promise<UpstreamResponse> {
    await this.checkEgress();
    await this.opts.lora?.ready();
    const { res, errorText, adapter } = await this.sendRouted(req);
    if ((res.statusCode ?? 500) >= 400) return errorResponse(res, errorText ?? (await readAll(res)));
    const type = String(res.headers["content-type"] ?? "");
    if (req.stream && type.includes("text/event-stream"))
      return { kind: "stream", chunks: this.chunks(res, req.signal), ...(adapter ? { adapter } : {}) };
    const text = await this.readWithTimeout(res);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new UpstreamUnavailableError(`upstream sent invalid JSON (${text.slice(0, 120)})`);
    }
    if (typeof json !== "object" || json === null)
      throw new UpstreamUnavailableError("upstream sent a non-object JSON body");
    const body = json as Record<string, unknown>;
    // Asked to stream but answered with one JSON completion: replay it as a stream.
    if (req.stream) return { kind: "stream", chunks: completionAsChunks(body), ...(adapter ? { adapter } : {}) };
    return { kind: "json", body, ...(adapter ? { adapter } : {}) };
  }

  /**
   * The request with the user's engine adapter, when it names one: loaded first if needed; answered "not loaded"
   * (the engine evicted it), loaded again and asked once more; refused or still not loaded, asked of the base and
   * said so. Never another name: the name is the user's own version's.
   */
  private async sendRouted(req: UpstreamRequest): Promise<Answer & { adapter?: AdapterOutcome }> {
    const router = this.opts.userLora;
    const wanted = req.engineAdapter;
    if (!router || !wanted) return this.sendOnce(req, null);
    const base = async (fallback: AdapterFallback) => ({
      ...(await this.sendOnce(req, null)),
      adapter: { served: false, fallback } as const,
    });
    const load = () => router.ensure(wanted).catch(() => null);
    let name = await load();
    if (name === null) return base("adapter_load_failed");
    for (let attempt = 0; ; attempt++) {
      const answer = await this.sendOnce(req, name);
      const status = answer.res.statusCode ?? 500;
      if (status < 400) return { ...answer, adapter: { served: true } };
      const text = answer.errorText ?? (await readAll(answer.res));
      if (!isNotLoaded(router.engine, status, text, name)) return { res: answer.res, errorText: text };
      router.forget(name);
      if (attempt === 1) return base("adapter_not_loaded");
      name = await load();
      if (name === null) return base("adapter_load_failed");
    }
  }

  /** One request; a backend that rejects log-probs is asked again without, and never again. */
  private async sendOnce(req: UpstreamRequest, userAdapter: string | null): Promise<Answer> {
    const askLogprobs = this.logprobsSupported && req.body.logprobs == null;
    const res = await this.post(this.outgoing(req, askLogprobs, userAdapter), req.signal);
    if (!askLogprobs || res.statusCode !== 400) return { res };
    const text = await readAll(res);
    if (!/logprob/i.test(text)) return { res, errorText: text };
    this.logprobsSupported = false;
    return { res: await this.post(this.outgoing(req, false, userAdapter), req.signal) };
  }

  private post(payload: string, signal: AbortSignal): Promise<IncomingMessage> {
    const u = this.url;
    const mod = u.protocol === "https:" ? https : http;
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(payload),
        accept: "application/json, text/event-stream",
      };
      if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
      const r = mod.request(
        {
          protocol: u.protocol,
          hostname: u.hostname,
          port: u.port,
          path: u.pathname + u.search,
          method: "POST",
          headers,
          agent: u.protocol === "https:" ? agents.https : agents.http,
          // The address connected to is the one the egress policy checks: no second resolution to rebind.
          lookup: egressLookup(u.port || (u.protocol === "https:" ? "443" : "80")),
        },
        (res) => {
          clearTimeout(timer);
          resolve(res);
        },
      );
      const timer = setTimeout(() => {
        r.destroy();
        reject(new UpstreamTimeoutError(this.opts.timeoutMs));
      }, this.opts.timeoutMs);
      const onAbort = () => {
        clearTimeout(timer);
        r.destroy();
        reject(new UpstreamUnavailableError("request aborted"));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      r.on("close", () => signal.removeEventListener("abort", onAbort));
      r.on("error", (err) => {
        clearTimeout(timer);
        reject(new UpstreamUnavailableError(err.message || (err as NodeJS.ErrnoException).code || "connection failed"));
      });
      r.end(payload);
    });
  }

  private readWithTimeout(res: IncomingMessage): Promise<string> {
    return new Promise((resolve, reject) => {
      let text = "";
      let timer = setTimeout(fail, this.opts.timeoutMs);
      const ms = this.opts.timeoutMs;
      function fail() {
        res.destroy();
        reject(new UpstreamTimeoutError(ms));
      }
      res.setEncoding("utf8");
      const max = this.maxBytes;
      res.on("data", (c: string) => {
        text += c;
        clearTimeout(timer);
        if (text.length > max) {
          res.destroy();
          reject(new UpstreamUnavailableError(`upstream response exceeds ${max} bytes`));
          return;
        }
        timer = setTimeout(fail, ms);
      });
      let ended = false;
      res.on("end", () => ((ended = true), clearTimeout(timer), resolve(text)));
      res.on("error", (err) => (clearTimeout(timer), reject(new UpstreamUnavailableError(err.message))));
      // 'close' follows every answer: build the error (a stack capture) only when it is one.
      res.on(
        "close",
        () => (clearTimeout(timer), ended || reject(new UpstreamUnavailableError("upstream closed the connection"))),
      );
    });
  }

  private async *chunks(res: IncomingMessage, signal: AbortSignal): AsyncIterable<StreamChunk> {
    const parser = new SseParser();
    res.setEncoding("utf8");
    const queue: string[] = [];
    let ended = false;
    let failure: Error | null = null;
    let wake: (() => void) | null = null;
    const ms = this.opts.timeoutMs;
    let timer = setTimeout(onIdle, ms);
    function notify() {
      const w = wake;
      wake = null;
      w?.();
    }
    function onIdle() {
      failure = new UpstreamTimeoutError(ms);
      res.destroy();
      notify();
    }
    const { maxBytes, maxEventBytes } = this;
    let total = 0;
    res.on("data", (c: string) => {
      clearTimeout(timer);
      total += c.length;
      queue.push(...parser.push(c));
      if (total > maxBytes || parser.pending > maxEventBytes) {
        failure ??= new UpstreamUnavailableError(
          total > maxBytes
            ? `upstream stream exceeds ${maxBytes} bytes`
            : `an upstream event exceeds ${maxEventBytes} bytes`,
        );
        res.destroy();
      } else timer = setTimeout(onIdle, ms);
      notify();
    });
    res.on("end", () => {
      clearTimeout(timer);
      queue.push(...parser.flush());
      ended = true;
      notify();
    });
    res.on("error", (err) => {
      clearTimeout(timer);
      failure ??= new UpstreamUnavailableError(err.message);
      notify();
    });
    // A destroyed response (client gone, idle timeout, reset) emits 'close' without 'end'.
    res.on("close", () => {
      clearTimeout(timer);
      if (!ended) failure ??= new UpstreamUnavailableError("upstream closed the stream");
      notify();
    });
    const onAbort = () => {
      clearTimeout(timer);
      res.destroy();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      for (;;) {
        while (queue.length) {
          const data = queue.shift()!;
          if (data === "[DONE]") return;
          let json: unknown;
          try {
            json = JSON.parse(data);
          } catch {
            continue; // not JSON: nothing a client could use either
          }
          if (json && typeof json === "object") yield { json: json as Record<string, unknown>, raw: data };
        }
        if (failure) throw failure;
        if (ended) {
          // A stream that ends without [DONE] is complete only if it finished its choice.
          return;
        }
        await new Promise<void>((r) => (wake = r));
      }
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      if (!res.complete) res.destroy();
    }
  }

  async close(): Promise<void> {}
}

/** An error answer's body: only its start is kept (it becomes an error message, never a payload). */
const MAX_ERROR_BODY = 64 * 1024;

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    res.setEncoding("utf8");
    res.on("data", (c: string) => {
      text += c;
      if (text.length > MAX_ERROR_BODY) {
        text = text.slice(0, MAX_ERROR_BODY);
        res.destroy();
        resolve(text);
      }
    });
    res.on("end", () => resolve(text));
    res.on("close", () => resolve(text));
  });
}

function errorResponse(res: IncomingMessage, text: string): UpstreamResponse {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* keep the text */
  }
  const ra = res.headers["retry-after"];
  return { kind: "error", status: res.statusCode ?? 502, body, retryAfter: typeof ra === "string" ? ra : null };
}

/** A non-streamed completion re-expressed as chunks: one with the whole message, then usage. */
async function* completionAsChunks(body: Record<string, unknown>): AsyncIterable<StreamChunk> {
  const choices = Array.isArray(body.choices) ? (body.choices as Record<string, unknown>[]) : [];
  const base = { id: body.id, object: "chat.completion.chunk", created: body.created, model: body.model };
  const json: Record<string, unknown> = {
    ...base,
    choices: choices.map((c) => {
      const msg = (c.message ?? {}) as Record<string, unknown>;
      const toolCalls = Array.isArray(msg.tool_calls)
        ? (msg.tool_calls as object[]).map((t, index) => ({ index, ...t }))
        : undefined;
      return {
        index: c.index ?? 0,
        delta: { ...msg, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
        logprobs: c.logprobs ?? null,
        finish_reason: c.finish_reason ?? null,
      };
    }),
  };
  yield { json, raw: JSON.stringify(json) };
  if (body.usage) {
    const usage = { ...base, choices: [], usage: body.usage };
    yield { json: usage, raw: JSON.stringify(usage) };
  }
}
