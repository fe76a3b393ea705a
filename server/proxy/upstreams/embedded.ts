// The embedded policy (server/engine) behind the proxy's Upstream interface. Its answers are expressed in
// OpenAI's wire format, with the token ids and behaviour log-probs the engine reports (`token_ids` as vLLM
// names them; the proxy strips both unless the client asked). The engine pins the weights a generation
// started on, so a hot swap never interrupts or mislabels an answer: the version is read when it starts.
import { randomBytes } from "node:crypto";
import { EmbeddedEngine, type ChatOptions, type ChatResult } from "../../engine/engine";
import {
  chatMessageSchema,
  parseToolCalls,
  toolDefSchema,
  type ChatMessage,
  type ToolCall,
  type ToolDef,
} from "../../engine/tokenizer";
import type { TokenEvent } from "../../engine/generate";
import {
  UpstreamUnavailableError,
  type StreamChunk,
  type Upstream,
  type UpstreamRequest,
  type UpstreamResponse,
} from "./types";

/** The part of EmbeddedEngine the proxy uses (a fake can stand in for it in tests). */
export interface EngineLike {
  readonly loaded: boolean;
  readonly version: number;
  load(checkpointPath: string, version?: number): Promise<void>;
  swap(checkpointPath: string, version?: number): Promise<void>;
  /** Pins the current weights when called; the returned stream says which version it will finish on. */
  chatStream(
    messages: readonly ChatMessage[],
    opts?: ChatOptions,
  ): AsyncGenerator<TokenEvent, ChatResult> & { readonly version: number };
  dispose(): void;
}

export interface EmbeddedOptions {
  model: string;
  checkpointPath: string;
  version: number;
  engine?: EngineLike;
  /** When the client sends no max tokens. */
  defaultMaxTokens: number;
}

type Obj = Record<string, unknown>;

export class EmbeddedUpstream implements Upstream {
  readonly kind = "embedded" as const;
  readonly model: string;
  private readonly engine: EngineLike;
  private loading: Promise<void> | null = null;

  constructor(private readonly opts: EmbeddedOptions) {
    this.model = opts.model;
    this.engine = opts.engine ?? new EmbeddedEngine();
  }

  private ready(): Promise<void> {
    if (this.engine.loaded) return Promise.resolve();
    this.loading ??= this.engine.load(this.opts.checkpointPath, this.opts.version).catch((err: Error) => {
      this.loading = null;
      throw new UpstreamUnavailableError(`embedded policy could not load ${this.opts.checkpointPath}: ${err.message}`);
    });
    return this.loading;
  }

  async switchVersion(version: number, checkpointPath: string | null): Promise<void> {
    if (!checkpointPath) return;
    this.opts.checkpointPath = checkpointPath;
    this.opts.version = version;
    if (this.engine.loaded) await this.engine.swap(checkpointPath, version);
  }

  async send(req: UpstreamRequest): Promise<UpstreamResponse> {
    const parsed = parseRequest(req.body, this.opts.defaultMaxTokens);
    if (typeof parsed === "string") {
      return {
        kind: "error",
        status: 400,
        retryAfter: null,
        body: { error: { message: parsed, type: "invalid_request_error", param: "messages", code: null } },
      };
    }
    await this.ready();
    const id = `chatcmpl-${randomBytes(12).toString("hex")}`;
    const created = Math.floor(Date.now() / 1000);
    // chatStream pins the weights when it is called: the stream's own version is the one that answers.
    const gen = this.engine.chatStream(
      parsed.messages,
      req.adapter ? { ...parsed.options, adapter: req.adapter } : parsed.options,
    );
    const version = gen.version;
    if (req.stream)
      return { kind: "stream", policyVersion: version, chunks: this.streamChunks(gen, id, created, req.signal) };
    const tokens: TokenEvent[] = [];
    let result: ChatResult;
    try {
      for (;;) {
        if (req.signal.aborted) throw new UpstreamUnavailableError("request aborted");
        const it = await gen.next();
        if (it.done) {
          result = it.value;
          break;
        }
        tokens.push(it.value);
      }
    } finally {
      if (req.signal.aborted) await gen.return(undefined as never).catch(() => {});
    }
    return {
      kind: "json",
      policyVersion: result.version,
      body: {
        id,
        object: "chat.completion",
        created,
        model: this.model,
        choices: [
          {
            index: 0,
            message: assistantMessage(result.text),
            logprobs: { content: tokens.map(logprobEntry) },
            token_ids: result.tokenIds,
            finish_reason: finishReason(result),
          },
        ],
        usage: usage(result),
      },
    };
  }

  private async *streamChunks(
    gen: AsyncGenerator<TokenEvent, ChatResult>,
    id: string,
    created: number,
    signal: AbortSignal,
  ): AsyncIterable<StreamChunk> {
    const base = { id, object: "chat.completion.chunk", created, model: this.model };
    const chunk = (json: Obj): StreamChunk => ({ json, raw: JSON.stringify(json) });
    let finished = false;
    try {
      yield chunk({
        ...base,
        choices: [{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }],
      });
      for (;;) {
        if (signal.aborted) return;
        const it = await gen.next();
        if (it.done) {
          finished = true;
          const r = it.value;
          // The text went out as content as it was sampled; its tool calls, once complete, go out as one delta.
          const calls = assistantMessage(r.text).tool_calls;
          const delta = calls ? { tool_calls: calls.map((c, index) => ({ index, ...c })) } : {};
          yield chunk({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason(r) }] });
          yield chunk({ ...base, choices: [], usage: usage(r) });
          return;
        }
        const ev = it.value;
        yield chunk({
          ...base,
          choices: [
            {
              index: 0,
              delta: { content: ev.text },
              logprobs: { content: [logprobEntry(ev)] },
              token_ids: [ev.tokenId],
              finish_reason: null,
            },
          ],
        });
      }
    } finally {
      if (!finished) await gen.return(undefined as never).catch(() => {});
    }
  }

  async close(): Promise<void> {
    this.engine.dispose();
  }
}

/**
 * The reply as an OpenAI assistant message: the chat template's `<tool_call>{"name", "arguments"}</tool_call>`
 * blocks become `tool_calls` (the template renders them back to the same text in the next request), the rest is
 * the content. Without this an agent never sees the embedded policy call a tool.
 */
function assistantMessage(text: string): { role: "assistant"; content: string | null; tool_calls?: ToolCall[] } {
  const { content, toolCalls } = parseToolCalls(text);
  if (toolCalls.length === 0) return { role: "assistant", content: text };
  return { role: "assistant", content: content || null, tool_calls: toolCalls };
}

function finishReason(r: ChatResult): string {
  return r.finishReason === "stop" && parseToolCalls(r.text).toolCalls.length > 0 ? "tool_calls" : r.finishReason;
}

function logprobEntry(ev: TokenEvent) {
  return { token: ev.text, logprob: ev.logprob, bytes: null, top_logprobs: [] };
}

function usage(r: ChatResult) {
  return {
    prompt_tokens: r.promptIds.length,
    completion_tokens: r.tokenIds.length,
    total_tokens: r.promptIds.length + r.tokenIds.length,
  };
}

function parseRequest(body: Obj, defaultMaxTokens: number): { messages: ChatMessage[]; options: ChatOptions } | string {
  const raw = Array.isArray(body.messages) ? body.messages : [];
  const messages: ChatMessage[] = [];
  for (const [i, m] of raw.entries()) {
    const r = chatMessageSchema.safeParse({
      ...(m as Obj),
      role: (m as Obj).role === "function" ? "tool" : (m as Obj).role,
    });
    if (!r.success) return `messages.${i}: ${r.error.issues[0]?.message ?? "invalid message"}`;
    messages.push(r.data);
  }
  let tools: ToolDef[] | undefined;
  if (Array.isArray(body.tools)) {
    tools = [];
    for (const t of body.tools) {
      const r = toolDefSchema.safeParse(t);
      if (r.success) tools.push(r.data);
    }
  }
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const maxTokens = num(body.max_completion_tokens) ?? num(body.max_tokens) ?? defaultMaxTokens;
  const options: ChatOptions = { maxTokens: Math.max(1, Math.trunc(maxTokens)), tools };
  const temperature = num(body.temperature);
  if (temperature !== undefined) options.temperature = temperature;
  const topP = num(body.top_p);
  if (topP !== undefined && topP > 0) options.topP = topP;
  const seed = num(body.seed);
  if (seed !== undefined) options.seed = Math.trunc(seed);
  return { messages, options };
}
