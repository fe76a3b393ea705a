// Judge backends: something that answers judge messages with text. The same parser and aggregator
// run on every backend's text, so a model server and the embedded heuristic are interchangeable.
import { z } from "zod";
import { createHeuristicJudge } from "./heuristic";
import { BadResponseError, openAIUrl, postJson, type FetchLike } from "./http";
import type { JudgeBackend } from "./judgeBackend";
import type { JudgeSettings } from "./schemas";

const ChatCompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.looseObject({
          content: z.string().nullable().optional(),
          // vLLM/SGLang reasoning parsers put the thinking here (`reasoning` in newer vLLM).
          reasoning_content: z.string().nullable().optional(),
          reasoning: z.string().nullable().optional(),
        }),
      }),
    )
    .min(1),
});

/**
 * Any OpenAI-compatible `/v1/chat/completions` server: vLLM, SGLang's OpenAI server, Ollama, OpenAI.
 * The raw vote text is the reasoning (when the server split it off) followed by the content, so the
 * last `\boxed{}` is still the final answer.
 */
export function createOpenAIJudgeBackend(opts: {
  baseUrl: string;
  model: string;
  apiKey?: string;
  fetch?: FetchLike;
}): JudgeBackend {
  const url = openAIUrl(opts.baseUrl, "chat/completions");
  return {
    kind: "openai",
    model: opts.model,
    endpoint: opts.baseUrl,
    async complete(messages, { temperature, maxTokens, signal }) {
      const body = { model: opts.model, messages, temperature, max_tokens: maxTokens, stream: false };
      const json = await postJson(url, body, { apiKey: opts.apiKey, signal, fetch: opts.fetch });
      const parsed = ChatCompletionSchema.safeParse(json);
      if (!parsed.success) throw new BadResponseError(`unexpected chat completion shape from ${url}`);
      const message = parsed.data.choices[0].message;
      const reasoning = message.reasoning_content ?? message.reasoning ?? "";
      const content = message.content ?? "";
      return reasoning ? `${reasoning}\n\n${content}` : content;
    },
  };
}

/** The backend for judge settings; `custom` judges have no backend (they replace the PRM entirely). */
export function createJudgeBackend(
  settings: JudgeSettings,
  secrets: { apiKey?: string; fetch?: FetchLike } = {},
): JudgeBackend {
  if (settings.kind === "openai") {
    if (!settings.baseUrl || !settings.model) throw new Error("an OpenAI-compatible judge needs baseUrl and model");
    return createOpenAIJudgeBackend({
      baseUrl: settings.baseUrl,
      model: settings.model,
      apiKey: secrets.apiKey,
      fetch: secrets.fetch,
    });
  }
  if (settings.kind === "heuristic") return createHeuristicJudge();
  throw new Error("custom judges run a reward module, not a backend");
}
