// Generations that SGLang aborts because training publishes new weights, retried so the client never sees it.
//
// slime pauses its engines before each weight update with `POST /pause_generation {}` (OpenClaw-RL fork
// `slime/backends/sglang_utils/sglang_engine.py`), and SGLang's `PauseGenerationReqInput.mode` defaults to
// "abort": every request being generated is returned at once with finish_reason "abort" (a graceful abort:
// a normal completion, or a normal last stream chunk), while requests that arrive during the pause wait until
// `continue_generation` (sgl-project/sglang `python/sglang/srt/managers/io_struct.py`, `tokenizer_manager.py`).
// So an aborted generation is simply asked again:
// - a JSON completion that ended in "abort" is sent again (the client has seen nothing of it);
// - a stream that ends in "abort" before any text reached the client is started again;
// - a stream that already forwarded text continues from it: the same request with that text as a final
//   assistant message and `continue_final_message` (SGLang's chat API renders it as the prefix to extend),
//   so the client sees one uninterrupted answer. Reasoning or tool-call deltas cannot be continued that way
//   (their raw form is the parser's, not the client's): such a stream ends in "abort" as before.
// The abort chunk itself is dropped (SGLang may re-send already streamed tokens in it). A retry is bounded.
import {
  UpstreamUnavailableError,
  type StreamChunk,
  type Upstream,
  type UpstreamRequest,
  type UpstreamResponse,
} from "./types";

/** How many times one client request may be re-sent after an abort (weight updates are minutes apart). */
export const ABORT_RETRIES = 3;

type Choice = { index?: unknown; finish_reason?: unknown; delta?: Record<string, unknown> };

function choicesOf(json: Record<string, unknown>): Choice[] {
  return Array.isArray(json.choices) ? (json.choices as Choice[]) : [];
}

const aborted = (json: Record<string, unknown>) => choicesOf(json).some((c) => c.finish_reason === "abort");

export class AbortRetryingUpstream implements Upstream {
  readonly switchVersion?: Upstream["switchVersion"];
  readonly preloadAdapter?: Upstream["preloadAdapter"];
  readonly releaseAdapters?: Upstream["releaseAdapters"];

  constructor(
    private readonly inner: Upstream,
    private readonly retries = ABORT_RETRIES,
  ) {
    if (inner.switchVersion) this.switchVersion = inner.switchVersion.bind(inner);
    if (inner.preloadAdapter) this.preloadAdapter = inner.preloadAdapter.bind(inner);
    if (inner.releaseAdapters) this.releaseAdapters = inner.releaseAdapters.bind(inner);
  }

  get kind() {
    return this.inner.kind;
  }

  get model() {
    return this.inner.model;
  }

  async send(req: UpstreamRequest): Promise<UpstreamResponse> {
    for (let attempt = 0; ; attempt++) {
      const res = await this.inner.send(req);
      if (res.kind === "json" && aborted(res.body) && attempt < this.retries) continue;
      if (res.kind === "stream" && (req.body.n ?? 1) === 1) return { ...res, chunks: this.continued(req, res.chunks) };
      return res;
    }
  }

  /** The stream, continued past aborts (see the header). */
  private async *continued(req: UpstreamRequest, first: AsyncIterable<StreamChunk>): AsyncIterable<StreamChunk> {
    let chunks = first;
    let text = "";
    let continuable = true;
    for (let attempt = 0; ; attempt++) {
      let wasAborted = false;
      for await (const chunk of chunks) {
        const choice = choicesOf(chunk.json)[0];
        if (choice?.finish_reason === "abort" && attempt < this.retries && continuable) {
          wasAborted = true;
          break; // closes this stream
        }
        const delta = choice?.delta ?? {};
        if (typeof delta.content === "string") text += delta.content;
        if (delta.reasoning_content || delta.tool_calls) continuable = false;
        yield chunk;
      }
      if (!wasAborted) return;
      const messages = Array.isArray(req.body.messages) ? req.body.messages : [];
      const body =
        text === ""
          ? req.body
          : {
              ...req.body,
              messages: [...messages, { role: "assistant", content: text }],
              continue_final_message: true,
            };
      const res = await this.inner.send({ ...req, body });
      if (res.kind === "error")
        throw new UpstreamUnavailableError(`continuing an aborted generation failed: HTTP ${res.status}`);
      if (res.kind === "json") throw new UpstreamUnavailableError("continuing an aborted stream got a JSON answer");
      chunks = res.chunks;
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
