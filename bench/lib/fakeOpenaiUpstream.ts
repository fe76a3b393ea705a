// A fake OpenAI-compatible chat server on 127.0.0.1: JSON completions and SSE chunk streams (role/content/
// reasoning_content/tool_calls deltas, a finish chunk, a usage chunk when stream_options.include_usage, then
// [DONE]), log-probs when asked. Replies can be scripted per request, including failures: HTTP errors, hangs,
// stalled streams and dropped connections.
// Shapes follow the official SDK's types, openai-node 6.49.0 (the devDependency `openai`):
// resources/chat/completions/completions.d.ts `ChatCompletion`, `ChatCompletionChunk` (choices[].delta,
// finish_reason, usage) — and the proxy tests read this fake's answers through that SDK. `reasoning_content`
// is SGLang's extension, not in the SDK. With `flavor: "sglang"` the fake serialises as SGLang does
// (sgl-project/sglang python/sglang/srt/entrypoints/openai/protocol.py @004c82e0 `DeltaMessage`, `ChatMessage`,
// `ChatCompletionResponseStreamChoice`; serving_chat.py @002897c2 streams `chunk.model_dump_json()` and builds the
// non-streaming message with `content=text if text else ""`): every optional field is present, null when unset.
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface FakeToolCall {
  name: string;
  arguments: string;
}

export type FakeReply =
  | {
      kind?: "message";
      content?: string;
      reasoning?: string;
      toolCalls?: FakeToolCall[];
      finishReason?: string;
      /** Wait before answering (headers included). */
      delayMs?: number;
      /** Hold the answer until this settles: a test decides when an in-flight request completes. */
      waitFor?: Promise<unknown>;
      /** Wait between stream chunks. */
      chunkDelayMs?: number;
    }
  | { kind: "error"; status: number; body?: unknown; retryAfter?: string }
  /** Accept the request and never answer. */
  | { kind: "hang" }
  /** Stream the first chunk, then go silent. */
  | { kind: "stall" }
  /** Drop the connection without answering. */
  | { kind: "reset" };

export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

type Obj = Record<string, unknown>;

export interface FakeUpstreamOptions {
  /** Answer 400 to any request asking for log-probs (as some OpenAI models do). */
  rejectLogprobs?: boolean;
  /** Return vLLM-style `token_ids` on choices. */
  tokenIds?: boolean;
  model?: string;
  /** Keep received requests in `requests` (default true; a benchmark turns it off). */
  recordRequests?: boolean;
  /** "sglang": every pydantic field serialised, null when unset (see the header); default: the SDK's shapes. */
  flavor?: "openai" | "sglang";
}

/** SGLang's DeltaMessage / ChatMessage fields (hidden_states is popped when None). */
const SGLANG_MESSAGE_FIELDS = { role: null, content: null, reasoning_content: null, tool_calls: null };

function lastUserText(body: Obj): string {
  const messages = Array.isArray(body.messages) ? (body.messages as Obj[]) : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) return (m.content as Obj[]).map((p) => String(p.text ?? "")).join(" ");
  }
  return "";
}

/** The deterministic default answer. */
export const defaultReply = (body: Obj): FakeReply => ({ content: `echo: ${lastUserText(body).slice(0, 200)}` });

/** Pieces a content string is streamed in (words with their trailing space). */
export function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** The log-prob the fake reports for the i-th generated piece. */
export const fakeLogprob = (i: number) => -0.01 * (i + 1);
export const fakeTokenId = (i: number) => 1000 + i;

export async function startFakeUpstream(opts: FakeUpstreamOptions = {}) {
  const model = opts.model ?? "fake-model";
  const requests: ReceivedRequest[] = [];
  const queue: FakeReply[] = [];
  let responder: (body: Obj) => FakeReply = defaultReply;
  const sockets = new Set<Socket>();
  let seq = 0;

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function chat(req: IncomingMessage, res: ServerResponse, body: Obj) {
    const reply = queue.shift() ?? responder(body);
    if (reply.kind === "hang") return;
    if (reply.kind === "reset") return req.socket.destroy();
    if (reply.kind === "error") {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (reply.retryAfter) headers["retry-after"] = reply.retryAfter;
      res.writeHead(reply.status, headers);
      return res.end(
        JSON.stringify(
          reply.body ?? {
            error: { message: `scripted failure ${reply.status}`, type: "server_error", param: null, code: null },
          },
        ),
      );
    }
    const wantLogprobs = body.logprobs === true;
    if (wantLogprobs && opts.rejectLogprobs) {
      res.writeHead(400, { "content-type": "application/json" });
      return res.end(
        JSON.stringify({
          error: {
            message: "logprobs are not supported with this model",
            type: "invalid_request_error",
            param: "logprobs",
            code: null,
          },
        }),
      );
    }
    const msg = reply.kind === "stall" ? { content: "partial answer that never finishes" } : reply;
    if ("delayMs" in msg && msg.delayMs) await sleep(msg.delayMs);
    if ("waitFor" in msg && msg.waitFor) await msg.waitFor.catch(() => {});
    const id = `chatcmpl-fake-${++seq}`;
    const created = 1_700_000_000;
    const content = msg.content ?? (msg.toolCalls?.length ? null : "");
    const parts = content ? pieces(content) : [];
    const toolCalls = (msg.toolCalls ?? []).map((c, i) => ({
      id: `call_${seq}_${i}`,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
    const finish = msg.finishReason ?? (toolCalls.length ? "tool_calls" : "stop");
    const promptChars = JSON.stringify(body.messages ?? []).length;
    const usage = {
      prompt_tokens: Math.ceil(promptChars / 4),
      completion_tokens: parts.length + toolCalls.length,
      total_tokens: Math.ceil(promptChars / 4) + parts.length + toolCalls.length,
    };
    const lp = (p: string, i: number) => ({
      token: p,
      logprob: fakeLogprob(i),
      bytes: [...Buffer.from(p)],
      top_logprobs: [],
    });

    const sglang = opts.flavor === "sglang";
    if (body.stream !== true) {
      const message: Obj = sglang
        ? { ...SGLANG_MESSAGE_FIELDS, role: "assistant", content: content ?? "" }
        : { role: "assistant", content };
      if (msg.reasoning) message.reasoning_content = msg.reasoning;
      if (toolCalls.length) message.tool_calls = toolCalls;
      const choice: Obj = {
        index: 0,
        message,
        logprobs: wantLogprobs ? { content: parts.map(lp) } : null,
        finish_reason: finish,
        ...(sglang ? { matched_stop: null } : {}),
      };
      if (opts.tokenIds) choice.token_ids = parts.map((_, i) => fakeTokenId(i));
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ id, object: "chat.completion", created, model, choices: [choice], usage }));
    }

    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (choices: Obj[], extra: Obj = {}) => {
      const shaped = sglang
        ? choices.map((c) => ({ matched_stop: null, ...c, delta: { ...SGLANG_MESSAGE_FIELDS, ...(c.delta as Obj) } }))
        : choices;
      res.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: shaped, ...(sglang ? { usage: null } : {}), ...extra })}\n\n`,
      );
    };
    const gap = "chunkDelayMs" in msg && msg.chunkDelayMs ? () => sleep(msg.chunkDelayMs!) : () => Promise.resolve();
    send([{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }]);
    if (reply.kind === "stall") return;
    if (msg.reasoning) {
      for (const r of pieces(msg.reasoning)) {
        await gap();
        send([{ index: 0, delta: { reasoning_content: r }, logprobs: null, finish_reason: null }]);
      }
    }
    for (const [i, p] of parts.entries()) {
      await gap();
      const choice: Obj = {
        index: 0,
        delta: { content: p },
        logprobs: wantLogprobs ? { content: [lp(p, i)] } : null,
        finish_reason: null,
      };
      if (opts.tokenIds) choice.token_ids = [fakeTokenId(i)];
      send([choice]);
    }
    for (const [i, c] of toolCalls.entries()) {
      await gap();
      send([
        {
          index: 0,
          delta: {
            tool_calls: [{ index: i, id: c.id, type: "function", function: { name: c.function.name, arguments: "" } }],
          },
          logprobs: null,
          finish_reason: null,
        },
      ]);
      const half = Math.ceil(c.function.arguments.length / 2);
      for (const a of [c.function.arguments.slice(0, half), c.function.arguments.slice(half)]) {
        if (a)
          send([
            {
              index: 0,
              delta: { tool_calls: [{ index: i, function: { arguments: a } }] },
              logprobs: null,
              finish_reason: null,
            },
          ]);
      }
    }
    send([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }]);
    if ((body.stream_options as Obj | undefined)?.include_usage) send([], { usage });
    res.end("data: [DONE]\n\n");
  }

  const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0]!;
      if (req.method === "GET" && path === "/v1/models") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(
          JSON.stringify({ object: "list", data: [{ id: model, object: "model", created: 0, owned_by: "fake" }] }),
        );
      }
      if (req.method !== "POST" || path !== "/v1/chat/completions") {
        res.writeHead(404);
        return res.end();
      }
      let body: Obj;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Obj;
      } catch {
        res.writeHead(400, { "content-type": "application/json" });
        return res.end(
          JSON.stringify({
            error: { message: "invalid JSON", type: "invalid_request_error", param: null, code: null },
          }),
        );
      }
      if (opts.recordRequests !== false) requests.push({ path, headers: req.headers, body });
      void chat(req, res, body).catch(() => res.destroy());
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    model,
    requests,
    /** Replies for the next requests, in order; after them the responder answers. */
    enqueue(...replies: FakeReply[]) {
      queue.push(...replies);
    },
    respond(fn: (body: Obj) => FakeReply) {
      responder = fn;
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
      responder = defaultReply;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export type FakeUpstream = Awaited<ReturnType<typeof startFakeUpstream>>;
