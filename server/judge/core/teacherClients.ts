// Teacher log-prob clients: per-token log-probs of the recorded response under the hinted context
// (OpenClaw-RL `openclaw-opd/openclaw_opd_api_server.py`: the frozen PRM engine scores prompt+response with max_new_tokens=0 and the code
// keeps the last resp_len entries of input_token_logprobs).
//
// Contracts, checked against public sources:
// - SGLang `POST /generate` takes `input_ids` (or `text`), `sampling_params`, `return_logprob`,
//   `logprob_start_len`; `meta_info.input_token_logprobs` holds one `[logprob, token_id, text|null]`
//   per input position from `logprob_start_len` on, and the entry AT `logprob_start_len` is always
//   null: SGLang returns `[None] + raw[:-1]` (sgl-project/sglang
//   python/sglang/srt/managers/scheduler_output_processor_mixin.py @004ec010d029
//   `_process_input_token_logprobs`; the full path is written down in tests/fakes/prmServer.ts). So
//   we start at |prompt| - 1 and keep the last |response| entries, checking their token ids.
// - The SGLang teacher is usually reached through slime's sgl-router (the run's PRM router, or the policy
//   router), which serves no `/tokenize`: its route table (sgl-project/sglang sgl-router/src/server.rs
//   `build_app`, tests/fixtures/sglang/router-routes.json) has `/generate` but sends every other path to
//   a 404 `sink_handler`. So SGLang text is tokenized by `/generate` itself: `text` with
//   `max_new_tokens: 0`, `return_logprob` and `logprob_start_len: 0` returns one entry per input token,
//   each carrying its id. SGLang's tokenizer manager encodes `text` with the tokenizer's defaults, the
//   same as `/tokenize` for tokenizers that add no BOS (Qwen).
// - vLLM `POST /tokenize` takes `{model?, prompt, add_special_tokens}` and answers
//   `{tokens, count, max_model_len}`; it also accepts `{model, messages, add_generation_prompt}`
//   and applies the model's chat template (vllm/entrypoints/openai/protocol.py TokenizeChatRequest).
// - vLLM `POST /v1/completions` with `echo: true` and `logprobs: N` returns
//   `choices[0].logprobs.token_logprobs` over prompt tokens (first entry null) followed by the
//   generated ones; `max_tokens: 0` returns the prompt only, which older vLLM rejected, while
//   `max_tokens: 1` works everywhere (vllm/entrypoints/openai/completion/serving.py
//   `request_output_to_completion_response`; vllm-project/vllm PR #2995, issues #6508 and #9336).
// We always send token ids: the response span must be counted in tokens anyway, and ids avoid a
// second, possibly different tokenization on the server.
import { z } from "zod";
import { BadResponseError, joinUrl, postJson, type FetchLike } from "./http";
import { templateRenderer } from "./chatTemplate";
import { flattenContent, normalizeForTemplate } from "./messages";
import type { ChatMessage, TeacherSettings } from "./schemas";

/** The response as recorded text, or (better, exact) the policy's own token ids. */
export type TeacherResponse = string | readonly number[];

/**
 * `lora`: score with this adapter loaded in the engine (the per-user gate, personalization/engineGate.ts) instead of
 * the base: SGLang's `lora_path` on `/generate`, vLLM's adapter name as the completion's `model` (the ways the engines
 * select an adapter per request, tests/fixtures/lora/*.json `perRequest`). Tokenization stays the base's.
 */
export type ScoreOptions = { signal?: AbortSignal; tools?: readonly unknown[]; lora?: string };

/** How a remote teacher turns the hinted context into tokens (recorded on every judgment that used it). */
export type TemplatePath = "server" | "checkpoint" | "chatml";

export interface TeacherScorer {
  readonly kind: string;
  /** Embedded teachers use the policy's own renderer: "embedded". */
  readonly template: TemplatePath | "embedded";
  /** Breaker key. */
  readonly endpoint: string;
  /** Per-token log-probs of the response (one per response token) given `messages` as the prompt. */
  score(messages: readonly ChatMessage[], response: TeacherResponse, opts?: ScoreOptions): Promise<number[]>;
}

export type ChatRenderer = (messages: readonly ChatMessage[], tools?: readonly unknown[]) => string;

/** JSON the way Python's json.dumps writes it (", " and ": "), which HF chat templates use via tojson. */
function pyJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pyJson).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`).join(", ")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

type ToolCall = { function?: { name?: string; arguments?: unknown } };

/**
 * Qwen-style ChatML with the generation prompt (`<|im_start|>assistant\n`), tool definitions in the
 * system block, assistant tool calls as <tool_call> JSON and tool results as <tool_response> inside
 * a user turn. Exact for Qwen2.5/Qwen3 instruct templates; for other families use a server template
 * (vLLM) or pass your own renderer.
 */
export const renderChatML: ChatRenderer = (input, tools) => {
  const messages = normalizeForTemplate(input);
  const text = (m: ChatMessage) => flattenContent(m.content);
  let out = "";
  let start = 0;
  if (tools && tools.length > 0) {
    const system = messages[0]?.role === "system" ? `${text(messages[0])}\n\n` : "";
    start = messages[0]?.role === "system" ? 1 : 0;
    out +=
      `<|im_start|>system\n${system}# Tools\n\nYou may call one or more functions to assist with the user query.\n\n` +
      `You are provided with function signatures within <tools></tools> XML tags:\n<tools>` +
      tools.map((t) => `\n${pyJson(t)}`).join("") +
      `\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n` +
      `<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n`;
  }
  for (let i = start; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === "tool") {
      const first = i === 0 || messages[i - 1].role !== "tool";
      const last = i === messages.length - 1 || messages[i + 1].role !== "tool";
      out += `${first ? "<|im_start|>user" : ""}\n<tool_response>\n${text(m)}\n</tool_response>${last ? "<|im_end|>\n" : ""}`;
      continue;
    }
    const calls = m.role === "assistant" && Array.isArray(m.tool_calls) ? (m.tool_calls as ToolCall[]) : [];
    let body = text(m);
    calls.forEach((call, k) => {
      const args = call.function?.arguments;
      const argText = typeof args === "string" ? args : pyJson(args ?? {});
      body += `${body || k > 0 ? "\n" : ""}<tool_call>\n{"name": ${JSON.stringify(call.function?.name ?? "")}, "arguments": ${argText}}\n</tool_call>`;
    });
    out += `<|im_start|>${m.role}\n${body}<|im_end|>\n`;
  }
  return `${out}<|im_start|>assistant\n`;
};

type HttpOpts = { apiKey?: string; fetch?: FetchLike; signal?: AbortSignal };

const TokenizeResponseSchema = z.object({ tokens: z.array(z.int()) });

/** Native endpoints live at the server root even when the configured base ends in /v1. */
function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
}

async function tokenize(baseUrl: string, body: Record<string, unknown>, http: HttpOpts): Promise<number[]> {
  const url = joinUrl(serverRoot(baseUrl), "tokenize");
  const parsed = TokenizeResponseSchema.safeParse(await postJson(url, body, http));
  if (!parsed.success) throw new BadResponseError(`unexpected /tokenize shape from ${url}`);
  return parsed.data.tokens;
}

const SglangGenerateSchema = z.object({
  meta_info: z.object({
    input_token_logprobs: z.array(z.tuple([z.number().nullable(), z.int()]).rest(z.unknown())),
  }),
});

/** Token ids of `text` from SGLang's routed `/generate` (see the header: sgl-router has no `/tokenize`). */
async function sglangTokenize(generateUrl: string, text: string, http: HttpOpts): Promise<number[]> {
  if (text === "") return [];
  const body = {
    text,
    sampling_params: { max_new_tokens: 0, temperature: 0 },
    return_logprob: true,
    logprob_start_len: 0,
  };
  const parsed = SglangGenerateSchema.safeParse(await postJson(generateUrl, body, http));
  if (!parsed.success) throw new BadResponseError(`unexpected /generate shape from ${generateUrl}`);
  return parsed.data.meta_info.input_token_logprobs.map((e) => e[1]);
}

/** The last `respLen` of `logprobs` ending at `end`, all finite (a null means we misaligned). */
function responseSpan(logprobs: readonly (number | null)[], end: number, respLen: number, source: string): number[] {
  if (logprobs.length < end || end < respLen) {
    throw new BadResponseError(
      `${source}: got ${logprobs.length} log-probs, need ${respLen} ending at position ${end}`,
    );
  }
  const span = logprobs.slice(end - respLen, end);
  if (span.some((lp) => typeof lp !== "number" || !Number.isFinite(lp))) {
    throw new BadResponseError(`${source}: a response position has no log-prob`);
  }
  return span as number[];
}

/** The /generate body that scores `respLen` tokens after `promptLen` prompt tokens (see the header). */
export function sglangScoreRequest(promptIds: readonly number[], respIds: readonly number[], lora?: string) {
  if (promptIds.length === 0)
    throw new BadResponseError("sglang /generate: an empty prompt leaves the first response token unscored");
  return {
    input_ids: [...promptIds, ...respIds],
    sampling_params: { max_new_tokens: 0, temperature: 0 },
    return_logprob: true,
    // The entry at logprob_start_len is always null, so start one before the response.
    logprob_start_len: promptIds.length - 1,
    ...(lora ? { lora_path: lora } : {}),
  };
}

/** The checkpoint's own template when we have it (exact), else Qwen ChatML (exact for Qwen2.5/Qwen3 instruct only). */
function rendererFor(settings: { chatTemplate?: string; chatTemplateKwargs?: Record<string, unknown> }): {
  render: ChatRenderer;
  template: TemplatePath;
} {
  if (!settings.chatTemplate) return { render: renderChatML, template: "chatml" };
  const render = templateRenderer({ template: settings.chatTemplate, extra: settings.chatTemplateKwargs });
  return { render: (messages, tools) => render(normalizeForTemplate(messages), tools), template: "checkpoint" };
}

/** SGLang teacher: prompt tokens of the rendered context, then the score, both through /generate (router-safe). */
export function createSglangTeacher(opts: {
  baseUrl: string;
  apiKey?: string;
  render?: ChatRenderer;
  chatTemplate?: string;
  chatTemplateKwargs?: Record<string, unknown>;
  fetch?: FetchLike;
}): TeacherScorer {
  const { render, template } = opts.render ? { render: opts.render, template: "chatml" as const } : rendererFor(opts);
  const generateUrl = joinUrl(serverRoot(opts.baseUrl), "generate");
  return {
    kind: "sglang",
    template,
    endpoint: opts.baseUrl,
    async score(messages, response, { signal, tools, lora } = {}) {
      const http: HttpOpts = { apiKey: opts.apiKey, fetch: opts.fetch, signal };
      const promptIds = await sglangTokenize(generateUrl, render(messages, tools), http);
      const respIds = typeof response === "string" ? await sglangTokenize(generateUrl, response, http) : [...response];
      if (respIds.length === 0) return [];
      const parsed = SglangGenerateSchema.safeParse(
        await postJson(generateUrl, sglangScoreRequest(promptIds, respIds, lora), http),
      );
      if (!parsed.success) throw new BadResponseError(`unexpected /generate shape from ${generateUrl}`);
      // Entries start at logprob_start_len, so the response is the tail of the list.
      const entries = parsed.data.meta_info.input_token_logprobs;
      const tail = entries.slice(-respIds.length);
      if (tail.length === respIds.length && tail.some((e, k) => e[1] !== respIds[k])) {
        throw new BadResponseError(
          "sglang /generate: the scored token ids are not the response's (misaligned log-probs)",
        );
      }
      const lps = entries.map((e) => e[0]);
      return responseSpan(lps, lps.length, respIds.length, "sglang /generate");
    },
  };
}

const VllmCompletionSchema = z.object({
  choices: z.array(z.object({ logprobs: z.object({ token_logprobs: z.array(z.number().nullable()) }) })).min(1),
});

/**
 * vLLM teacher: prompt tokens from /tokenize (the server's chat template by default), then
 * /v1/completions echoing the prompt with log-probs; the response span is located by position,
 * which holds for max_tokens 0 (prompt only) and 1 (one generated entry after it).
 */
export function createVllmTeacher(opts: {
  baseUrl: string;
  model: string;
  apiKey?: string;
  template?: TemplatePath;
  render?: ChatRenderer;
  chatTemplate?: string;
  chatTemplateKwargs?: Record<string, unknown>;
  maxTokens?: 0 | 1;
  fetch?: FetchLike;
}): TeacherScorer {
  // The server applying the model's own template is the most faithful path; then the checkpoint's template; then ChatML.
  const template: TemplatePath = opts.render ? "chatml" : (opts.template ?? "server");
  const render = opts.render ?? (template === "checkpoint" ? rendererFor(opts).render : renderChatML);
  const completionsUrl = joinUrl(serverRoot(opts.baseUrl), "v1/completions");
  return {
    kind: "vllm",
    template,
    endpoint: opts.baseUrl,
    async score(messages, response, { signal, tools, lora } = {}) {
      const http: HttpOpts = { apiKey: opts.apiKey, fetch: opts.fetch, signal };
      const promptIds =
        template === "server"
          ? await tokenize(
              opts.baseUrl,
              {
                model: opts.model,
                messages: normalizeForTemplate(messages),
                add_generation_prompt: true,
                ...(tools && tools.length > 0 ? { tools } : {}),
              },
              http,
            )
          : await tokenize(
              opts.baseUrl,
              { model: opts.model, prompt: render(messages, tools), add_special_tokens: false },
              http,
            );
      const respIds =
        typeof response === "string"
          ? await tokenize(opts.baseUrl, { model: opts.model, prompt: response, add_special_tokens: false }, http)
          : [...response];
      if (respIds.length === 0) return [];
      const inputIds = [...promptIds, ...respIds];
      const body = {
        model: lora ?? opts.model,
        prompt: inputIds,
        echo: true,
        logprobs: 1,
        max_tokens: opts.maxTokens ?? 1,
        temperature: 0,
      };
      const parsed = VllmCompletionSchema.safeParse(await postJson(completionsUrl, body, http));
      if (!parsed.success) throw new BadResponseError(`unexpected /v1/completions shape from ${completionsUrl}`);
      return responseSpan(
        parsed.data.choices[0].logprobs.token_logprobs,
        inputIds.length,
        respIds.length,
        "vllm /v1/completions",
      );
    },
  };
}

/** A scorer for the teacher settings; null when no teacher is configured or it is the embedded one (built elsewhere). */
export function createTeacherScorer(
  settings: TeacherSettings,
  secrets: { apiKey?: string; fetch?: FetchLike } = {},
): TeacherScorer | null {
  if (settings.kind === "sglang" && settings.baseUrl) {
    return createSglangTeacher({
      baseUrl: settings.baseUrl,
      apiKey: secrets.apiKey,
      chatTemplate: settings.template === "checkpoint" ? settings.chatTemplate : undefined,
      chatTemplateKwargs: settings.chatTemplateKwargs,
      fetch: secrets.fetch,
    });
  }
  if (settings.kind === "vllm" && settings.baseUrl && settings.model) {
    return createVllmTeacher({
      baseUrl: settings.baseUrl,
      model: settings.model,
      apiKey: secrets.apiKey,
      template: settings.template ?? "server",
      chatTemplate: settings.chatTemplate,
      chatTemplateKwargs: settings.chatTemplateKwargs,
      maxTokens: settings.vllmMaxTokens,
      fetch: secrets.fetch,
    });
  }
  return null;
}
