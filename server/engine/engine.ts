/**
 * The embedded policy engine a proxy serves from: chat (streaming or not) with token ids and
 * behaviour log-probs, scoring of a given response (teacher / behaviour log-probs), and hot swap
 * of weights.
 *
 * Hot swap: every generation pins the loaded weights it started on (reference-counted); `swap`
 * installs the new version for later requests and disposes the old weights only once the last
 * generation pinned to them has finished. A generation started on version v finishes on v.
 */
import { AdapterPool, type ServedAdapter } from "./adapterPool";
import { initBackend } from "./backend";
import { loadCheckpoint } from "./checkpoint";
import {
  generateStream,
  sampleOptionsSchema,
  type GenerationResult,
  type SampleOptions,
  type TokenEvent,
} from "./generate";
import { disposeModel, type ModelConfig, type PolicyModel } from "./model";
import { fitChat, servingBudget } from "./fit";
import { scoreResponse } from "./score";
import { encode, END_ID, type ChatMessage, type RenderOptions } from "./tokenizer";

interface Loaded {
  model: PolicyModel;
  version: number;
  pins: number;
  retired: boolean;
}

export interface ChatOptions extends SampleOptions {
  tools?: RenderOptions["tools"];
  onToken?: (ev: TokenEvent) => void;
  /** A user's adapter to answer with, on the current base (per-user personalization). */
  adapter?: ServedAdapter;
}

/** A token stream bound to the weights version it was started on. */
export interface ChatStream extends AsyncGenerator<TokenEvent, ChatResult> {
  readonly version: number;
}

export interface ChatResult extends GenerationResult {
  /** weights version the whole response was generated with */
  version: number;
}

export interface ScoreResult {
  /** response ids that were scored (text responses get the end-of-turn token appended) */
  tokenIds: number[];
  logprobs: number[];
  /** prompt ids actually used (left-truncated when prompt + response exceed the context) */
  promptIds: number[];
  version: number;
}

export class EmbeddedEngine {
  private current: Loaded | null = null;
  /** Users' adapters merged on the current base, least recently used evicted. */
  readonly adapters = new AdapterPool(128);

  /** Load a checkpoint directory (replacing any loaded one, like `swap`). */
  async load(checkpointPath: string, version?: number): Promise<void> {
    await this.swap(checkpointPath, version);
  }

  /**
   * Load `checkpointPath` and make it current; in-flight generations keep their weights.
   * `version` defaults to the checkpoint's own meta.version.
   */
  async swap(checkpointPath: string, version?: number): Promise<void> {
    await initBackend();
    const { model, meta } = await loadCheckpoint(checkpointPath);
    const prev = this.current;
    this.current = { model, version: version ?? meta.version, pins: 0, retired: false };
    // Merged adapters share the old base's tensors: they go with it (each freed once its generations end).
    this.adapters.clear();
    if (prev) this.retire(prev);
  }

  get version(): number {
    return this.require().version;
  }

  get config(): ModelConfig {
    return this.require().model.config;
  }

  get loaded(): boolean {
    return this.current !== null;
  }

  /**
   * Prompt token ids for a chat request (with the generation prompt), fitted by whole messages (fit.ts) into
   * `budget` tokens: the context less the room a reply needs.
   */
  promptIds(messages: readonly ChatMessage[], budget: number, tools?: RenderOptions["tools"]): number[] {
    return fitChat(messages, budget, { addGenerationPrompt: true, tools });
  }

  /**
   * Streaming chat: an async iterator of tokens whose return value is the result. The weights are
   * pinned when this is called (not at the first `next()`), and `stream.version` says which version
   * the whole response will come from, so a swap can never slip in between. A stream that is never
   * iterated must be closed with `return()` to release its pin.
   */
  chatStream(messages: readonly ChatMessage[], opts: ChatOptions = {}): ChatStream {
    const { tools, onToken, adapter, ...sampling } = opts;
    const maxTokens = sampleOptionsSchema.shape.maxTokens.parse(sampling.maxTokens);
    const prompt = this.promptIds(messages, servingBudget(this.config.ctx, maxTokens), tools);
    const pinned = this.pin();
    let lease;
    try {
      lease = adapter ? this.adapters.acquire(pinned.model, pinned.version, adapter) : null;
    } catch (err) {
      this.unpin(pinned);
      throw err;
    }
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        lease?.release();
        this.unpin(pinned);
      }
    };
    const inner = this.run(pinned, lease?.model ?? pinned.model, prompt, sampling, onToken, release);
    let started = false;
    const stream: ChatStream = {
      version: pinned.version,
      next: (...args) => {
        started = true;
        return inner.next(...args);
      },
      return: (value) => {
        if (!started) release(); // the generator body never ran, so its finally will not
        return inner.return(value);
      },
      throw: (err) => {
        if (!started) release();
        return inner.throw(err);
      },
      [Symbol.asyncIterator]() {
        return stream;
      },
    };
    return stream;
  }

  private async *run(
    pinned: Loaded,
    model: PolicyModel,
    prompt: number[],
    sampling: SampleOptions,
    onToken: ChatOptions["onToken"],
    release: () => void,
  ): AsyncGenerator<TokenEvent, ChatResult> {
    const gen = generateStream(model, prompt, sampling);
    let finished = false;
    try {
      for (;;) {
        const it = await gen.next();
        if (it.done) {
          finished = true;
          return { ...it.value, version: pinned.version };
        }
        onToken?.(it.value);
        yield it.value;
      }
    } finally {
      // A consumer that stops early (or a throwing onToken) must still free the generation.
      if (!finished) await gen.return(undefined as never);
      release();
    }
  }

  /** Non-streaming chat (tokens still reach `opts.onToken` as they are sampled). */
  async chat(messages: readonly ChatMessage[], opts: ChatOptions = {}): Promise<ChatResult> {
    const gen = this.chatStream(messages, opts);
    for (;;) {
      const it = await gen.next();
      if (it.done) return it.value;
    }
  }

  /**
   * Per-token log-probs of a response under the current weights. A string response is encoded and
   * closed with the end-of-turn token (as the policy would emit it); ids are scored as given. A prompt
   * too long for the context is fitted by whole messages into the room the response leaves (generation
   * may have kept less; to reproduce a generation exactly, score its `promptIds` with score.ts).
   */
  async scoreChat(
    messages: readonly ChatMessage[],
    response: string | readonly number[],
    opts: { tools?: RenderOptions["tools"] } = {},
  ): Promise<ScoreResult> {
    const tokenIds = typeof response === "string" ? [...encode(response), END_ID] : [...response];
    const pinned = this.pin();
    try {
      const promptIds = this.promptIds(messages, pinned.model.config.ctx - tokenIds.length, opts.tools);
      const logprobs = scoreResponse(pinned.model, promptIds, tokenIds);
      return { tokenIds, logprobs, promptIds, version: pinned.version };
    } finally {
      this.unpin(pinned);
    }
  }

  /** Free the current weights once nothing is generating on them. */
  dispose(): void {
    this.adapters.clear();
    if (this.current) this.retire(this.current);
    this.current = null;
  }

  private require(): Loaded {
    if (!this.current) throw new Error("EmbeddedEngine: no checkpoint loaded");
    return this.current;
  }

  private pin(): Loaded {
    const l = this.require();
    l.pins += 1;
    return l;
  }

  private unpin(l: Loaded): void {
    l.pins -= 1;
    if (l.retired && l.pins === 0) disposeModel(l.model);
  }

  private retire(l: Loaded): void {
    l.retired = true;
    if (l.pins === 0) disposeModel(l.model);
  }
}
