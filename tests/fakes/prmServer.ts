// A fake PRM/teacher server on 127.0.0.1 that follows the real wire contracts:
// OpenAI `/v1/chat/completions`, SGLang `/generate` and `/tokenize`, vLLM `/v1/completions`.
// Chat replies are scripted per call (text, HTTP errors, delays for timeouts, garbage). Log-prob
// endpoints compute a deterministic fake model: char-level tokens (id = code point) and
// fakeLogprob(prev, id) = log p(id | ..., prev).
//
// SGLang `/generate` input log-probs follow SGLang's own code path (sgl-project/sglang):
// 1. `Scheduler.handle_generate_request` (python/sglang/srt/managers/scheduler.py, the same in
//    every stored version read): a `logprob_start_len` of -1 means `len(input_ids) - 1`; a start at or past the input length is
//    aborted ("logprob_start_len ... is higher than the number of input tokens"; newer versions allow
//    exactly the length, which yields no input log-probs).
// 2. `ScheduleBatch.prepare_for_extend` (schedule_batch.py @fd3907ee4618): the logits at positions
//    start..N-1 are scored against `origin_input_ids[start + 1 : N + 1]`, padded with token 0, so
//    raw[j] = log p(ids[start + j + 1] | ids[..start + j]) and the last entry scores the padding token.
// 3. `SchedulerOutputProcessorMixin._process_input_token_logprobs`
//    (scheduler_output_processor_mixin.py @004ec010d029): for a regular (not multi-item-scoring)
//    request, `input_token_logprobs_val = [None] + raw[:-1]` and `idx = origin_input_ids[start:]`.
// So entry j is log p(ids[start + j] | ids[..start + j - 1]) and the entry AT `logprob_start_len` is
// always None: to score every response token of a prompt of length P, start at P - 1.
// The tokenizer manager sends them as `[logprob, token_id, text|null]` triples in `meta_info`.
//
// vLLM `/v1/completions` with `echo` + `logprobs` returns `token_logprobs` over the prompt whose first
// entry is None (no context for it), then the generated tokens (vllm-project/vllm
// vllm/entrypoints/openai/serving_completion.py `request_output_to_completion_response`).
//
// With `{ router: true }` it stands in for slime's sgl-router in front of such an engine: only the
// method + path pairs of the router's route table (tests/fixtures/sglang/router-routes.json, extracted
// from sgl-router/src/server.rs `build_app` by integrations/contracts/extract_router_routes.py) reach the
// engine; everything else gets the router's fallback (`sink_handler`: an empty 404), e.g. `/tokenize`.
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Socket } from "node:net";
import { join } from "node:path";

type RouterTable = {
  routes: { path: string; method: string }[];
  fallback: { handler: string; status: number };
};
const routerTable = JSON.parse(
  readFileSync(join(import.meta.dirname, "../fixtures/sglang/router-routes.json"), "utf8"),
) as RouterTable;

/** Whether sgl-router serves `method path` (axum `{param}` segments match one path segment). */
export function routerServes(method: string, path: string): boolean {
  return routerTable.routes.some(
    (r) => r.method === method && new RegExp(`^${r.path.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path),
  );
}

export type FakeReply =
  | { text: string; reasoning?: string; delayMs?: number }
  | { status: number; body?: string; delayMs?: number }
  | { raw: string; delayMs?: number };

export type ChatHandler = (body: ChatRequestBody, call: number) => FakeReply;

export type ChatRequestBody = {
  model?: string;
  messages: { role: string; content: string }[];
  temperature?: number;
  max_tokens?: number;
};

export type RecordedRequest = { path: string; body: unknown; headers: http.IncomingHttpHeaders };

/** The fake model's log-prob of token `id` after token `prev`; tests compute expectations with it. */
export function fakeLogprob(prev: number, id: number): number {
  return -(((prev * 31 + id) % 97) + 1) / 100;
}

/** Char-level tokenizer of the fake: one token per code point. */
export function fakeTokenize(text: string): number[] {
  return [...text].map((c) => c.codePointAt(0) as number);
}

/** What the fake's chat template produces for messages (used by vLLM-style chat /tokenize). */
export function fakeChatTemplate(messages: { role: string; content?: unknown }[]): string {
  return (
    messages.map((m) => `<${m.role}>${typeof m.content === "string" ? m.content : ""}</${m.role}>`).join("") +
    "<assistant>"
  );
}

export type FakePrmServer = {
  url: string;
  requests: RecordedRequest[];
  /** Queue scripted chat replies (used in order; when empty the handler, if any, answers). */
  push(...replies: FakeReply[]): void;
  setChatHandler(handler: ChatHandler): void;
  /** Queue scripted replies for the log-prob endpoints (/generate, /v1/completions, /tokenize) instead of the fake model. */
  pushNative(path: string, ...replies: FakeReply[]): void;
  close(): Promise<void>;
};

function chatCompletion(reply: { text: string; reasoning?: string }) {
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 0,
    model: "fake-prm",
    choices: [
      {
        index: 0,
        finish_reason: "stop",
        message: {
          role: "assistant",
          content: reply.text,
          ...(reply.reasoning ? { reasoning_content: reply.reasoning } : {}),
        },
      },
    ],
  };
}

function inputLogprobs(ids: number[]): (number | null)[] {
  return ids.map((id, i) => (i === 0 ? null : fakeLogprob(ids[i - 1], id)));
}

/** What SGLang answers for /generate with return_logprob (steps 1-3 in the header); an error text when it aborts. */
export function sglangInputTokenLogprobs(
  ids: readonly number[],
  logprobStartLen: number,
): Array<[number | null, number, null]> | string {
  const n = ids.length;
  const start = logprobStartLen === -1 ? n - 1 : logprobStartLen;
  if (start < 0 || start >= n) {
    return `req.logprob_start_len=${start} is higher than the number of input tokens len(req.origin_input_ids)=${n}. Please use a smaller logprob_start_len.`;
  }
  const next = [...ids.slice(start + 1), 0]; // origin_input_ids[start+1 : N+1], padded with token 0
  const raw = next.map((id, j) => fakeLogprob(ids[start + j], id));
  const val: (number | null)[] = [null, ...raw.slice(0, -1)];
  return ids.slice(start).map((id, j) => [val[j], id, null]);
}

function nativeAnswer(path: string, body: Record<string, unknown>): { status: number; json: unknown } {
  if (path === "/tokenize") {
    const text = Array.isArray(body.messages)
      ? fakeChatTemplate(body.messages as { role: string; content?: unknown }[])
      : String(body.prompt ?? "");
    const tokens = fakeTokenize(text);
    return { status: 200, json: { tokens, count: tokens.length, max_model_len: 32768 } };
  }
  if (path === "/generate") {
    // SGLang takes token ids or text (tokenized by the engine's tokenizer).
    const ids = typeof body.text === "string" ? fakeTokenize(body.text) : (body.input_ids as number[]);
    if (body.return_logprob !== true)
      return { status: 200, json: { text: "", meta_info: { prompt_tokens: ids.length } } };
    const entries = sglangInputTokenLogprobs(ids, Number(body.logprob_start_len ?? -1));
    // An aborted request comes back from http_server's /generate as a 400 with the abort message.
    if (typeof entries === "string") return { status: 400, json: { error: { message: entries } } };
    return {
      status: 200,
      json: {
        text: "",
        meta_info: { prompt_tokens: ids.length, input_token_logprobs: entries, output_token_logprobs: [] },
      },
    };
  }
  if (path === "/v1/completions") {
    const ids = body.prompt as number[];
    const maxTokens = Number(body.max_tokens ?? 16);
    // Echo: prompt log-probs, then the generated token(s) (the fake always generates id 0).
    const generated = maxTokens > 0 ? [fakeLogprob(ids[ids.length - 1], 0)] : [];
    const tokenLogprobs = [...inputLogprobs(ids), ...generated];
    return { status: 200, json: { choices: [{ index: 0, text: "", logprobs: { token_logprobs: tokenLogprobs } }] } };
  }
  return { status: 404, json: { error: "not found" } };
}

export async function startFakePrmServer(opts: { router?: boolean } = {}): Promise<FakePrmServer> {
  const requests: RecordedRequest[] = [];
  const chatQueue: FakeReply[] = [];
  const nativeQueues = new Map<string, FakeReply[]>();
  let chatHandler: ChatHandler | null = null;
  let chatCalls = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const send = (res: http.ServerResponse, status: number, body: string) => {
    if (res.destroyed) return;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(body);
  };
  const later = (ms: number | undefined, fn: () => void) => {
    if (!ms) return fn();
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };
  const answer = (res: http.ServerResponse, reply: FakeReply) =>
    later(reply.delayMs, () => {
      if ("status" in reply)
        send(res, reply.status, reply.body ?? JSON.stringify({ error: { message: "scripted error" } }));
      else if ("raw" in reply) send(res, 200, reply.raw);
      else send(res, 200, JSON.stringify(chatCompletion(reply)));
    });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0];
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      } catch {
        return send(res, 400, JSON.stringify({ error: "bad json" }));
      }
      requests.push({ path, body, headers: req.headers });
      if (opts.router && !routerServes(req.method ?? "GET", path)) {
        res.writeHead(routerTable.fallback.status);
        return res.end();
      }
      if (req.method !== "POST") return send(res, 405, "{}");
      if (path === "/v1/chat/completions") {
        const call = chatCalls++;
        const reply = chatQueue.shift() ?? chatHandler?.(body as ChatRequestBody, call);
        if (!reply) return send(res, 500, JSON.stringify({ error: "no scripted reply" }));
        return answer(res, reply);
      }
      // Scripted /generate replies answer scoring requests (input_ids); tokenizing ones (text) get the fake model.
      const tokenizing = path === "/generate" && typeof body.text === "string";
      const scripted = tokenizing ? undefined : nativeQueues.get(path)?.shift();
      if (scripted) return answer(res, scripted);
      const { status, json } = nativeAnswer(path, body);
      send(res, status, JSON.stringify(json));
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    push: (...replies) => chatQueue.push(...replies),
    setChatHandler: (handler) => {
      chatHandler = handler;
    },
    pushNative: (path, ...replies) => {
      const q = nativeQueues.get(path) ?? [];
      q.push(...replies);
      nativeQueues.set(path, q);
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
