// A simulated user talks to the agent exactly as a real client would: the official `openai` client aimed at
// the proxy, `model` = the experiment's slug, and OpenClaw-RL's session headers. `X-Simulated-Persona` marks
// the traffic as simulated (the proxy honours it only for a key with write scope, like the worker's own key), and
// `X-User-Id` names the persona as the end user (identity scope): a per-user experiment serves and trains each
// simulated user's own adapter, and any experiment's turns are filterable by simulated user.
import OpenAI from "openai";
import type { ChatFn, ToolCall } from "./conversation";

export interface ProxyTarget {
  /** the proxy's base URL, e.g. http://127.0.0.1:30000/v1 */
  baseURL: string;
  apiKey: string;
  timeoutMs?: number;
}

export function proxyClient(target: ProxyTarget): OpenAI {
  // No client retries: a failed conversation is counted and the runner backs off instead.
  return new OpenAI({
    apiKey: target.apiKey,
    baseURL: target.baseURL,
    maxRetries: 0,
    timeout: target.timeoutMs ?? 120_000,
  });
}

export function proxyChat(
  client: OpenAI,
  conv: { model: string; sessionId: string; persona: string; signal?: AbortSignal },
): ChatFn {
  return async (req) => {
    const headers: Record<string, string> = {
      "X-Session-Id": conv.sessionId,
      "X-Turn-Type": "main",
      "X-Simulated-Persona": conv.persona,
      "X-User-Id": conv.persona,
    };
    if (req.done) headers["X-Session-Done"] = "1";
    const completion = await client.chat.completions.create(
      {
        model: conv.model,
        messages: req.messages,
        seed: req.seed,
        ...(req.tools ? { tools: req.tools } : {}),
        ...(req.maxTokens ? { max_tokens: req.maxTokens } : {}),
      },
      { headers, signal: conv.signal },
    );
    const message = completion.choices[0]?.message;
    const toolCalls: ToolCall[] = (message?.tool_calls ?? []).flatMap((c) =>
      c.type === "function"
        ? [
            {
              id: c.id,
              type: "function" as const,
              function: { name: c.function.name, arguments: c.function.arguments },
            },
          ]
        : [],
    );
    return { content: message?.content ?? "", toolCalls };
  };
}
