/**
 * Byte-level tokenizer and chat template for the embedded policy.
 *
 * Ids 0–255 are the UTF-8 bytes; a few special ids follow. The chat template is one line per rule:
 *
 *   <|system|>{content}<|end|>            system (and "developer", normalised to system)
 *   <|user|>{content}<|end|>
 *   <|assistant|>{content}{tool calls}<|end|>
 *   <|tool|>{content}<|end|>
 *   <|assistant|>                         generation prompt (addGenerationPrompt)
 *
 * Tool calls are rendered as text, one per call, after the content (newline-separated):
 *   <tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call>
 * Tool definitions, when given, are appended to the system message as
 *   "\n\n# Tools\n" + one JSON object {name, description, parameters} per line.
 * Content that is a list of parts keeps only text parts (joined with "\n"); other parts become
 * "[image]" / "[file]"-style placeholders so the prompt still shows something was there.
 *
 * The model ends its turn by emitting <|end|> (END_ID): that is the stop token, and it is part of
 * the response ids a sample trains on, so the policy learns when to stop.
 */
import { z } from "zod";

export const SPECIAL_TOKENS = {
  system: 256,
  user: 257,
  assistant: 258,
  tool: 259,
  end: 260,
  pad: 261,
} as const;

export const END_ID = SPECIAL_TOKENS.end;
export const PAD_ID = SPECIAL_TOKENS.pad;
export const VOCAB_SIZE = 262;

const SPECIAL_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(SPECIAL_TOKENS).map(([name, id]) => [id, `<|${name}|>`]),
);

const utf8 = new TextEncoder();

export function encode(text: string): number[] {
  return Array.from(utf8.encode(text));
}

/** Decode ids to text. Specials are dropped unless `keepSpecials` (then shown as `<|name|>`). */
export function decode(ids: readonly number[], opts: { keepSpecials?: boolean } = {}): string {
  const out: string[] = [];
  let bytes: number[] = [];
  const flush = () => {
    if (bytes.length) out.push(new TextDecoder().decode(Uint8Array.from(bytes)));
    bytes = [];
  };
  for (const id of ids) {
    if (id < 256) bytes.push(id);
    else if (opts.keepSpecials) {
      flush();
      out.push(SPECIAL_NAMES[id] ?? `<|${id}|>`);
    }
  }
  flush();
  return out.join("");
}

/**
 * Incremental decoder for streaming: feed ids one at a time, get the text they complete. A
 * multi-byte character split across tokens is emitted with its last byte ("" before that).
 */
export function createStreamDecoder(): { push(id: number): string; flush(): string } {
  const dec = new TextDecoder("utf-8");
  return {
    push: (id) => (id < 256 ? dec.decode(Uint8Array.of(id), { stream: true }) : ""),
    flush: () => dec.decode(),
  };
}

const textPart = z.object({ type: z.literal("text"), text: z.string() });
const otherPart = z.object({ type: z.string() }).loose();
const contentSchema = z.union([z.string(), z.null(), z.array(z.union([textPart, otherPart]))]).optional();

export const toolCallSchema = z.object({
  id: z.string().optional(),
  type: z.literal("function").optional(),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

export const chatMessageSchema = z.object({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: contentSchema,
  name: z.string().optional(),
  tool_calls: z.array(toolCallSchema).optional(),
  tool_call_id: z.string().optional(),
});

export const toolDefSchema = z.object({
  type: z.literal("function").optional(),
  function: z.object({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.unknown().optional(),
  }),
});

export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type ToolCall = z.infer<typeof toolCallSchema>;
export type ToolDef = z.infer<typeof toolDefSchema>;

export interface RenderOptions {
  addGenerationPrompt?: boolean;
  tools?: readonly ToolDef[];
}

export function contentText(content: ChatMessage["content"]): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content
    .map((p) => (p.type === "text" && typeof p.text === "string" ? p.text : `[${p.type.replace(/_url$/, "")}]`))
    .join("\n");
}

export function renderToolCall(call: ToolCall): string {
  let args: unknown = call.function.arguments;
  try {
    args = JSON.parse(call.function.arguments);
  } catch {
    // Not JSON: keep the raw string so nothing is lost.
  }
  return `<tool_call>${JSON.stringify({ name: call.function.name, arguments: args })}</tool_call>`;
}

/** Inverse of the tool-call rendering: split generated text into content and tool calls. */
export function parseToolCalls(text: string): { content: string; toolCalls: ToolCall[] } {
  const toolCalls: ToolCall[] = [];
  const re = /<tool_call>([\s\S]*?)<\/tool_call>/g;
  for (const m of text.matchAll(re)) {
    try {
      const parsed = z.object({ name: z.string(), arguments: z.unknown() }).parse(JSON.parse(m[1]));
      const args = typeof parsed.arguments === "string" ? parsed.arguments : JSON.stringify(parsed.arguments ?? {});
      toolCalls.push({
        id: `call_${toolCalls.length}`,
        type: "function",
        function: { name: parsed.name, arguments: args },
      });
    } catch {
      // Malformed call text stays in the content.
    }
  }
  const content = toolCalls.length ? text.replace(re, "").trim() : text;
  return { content, toolCalls };
}

const ROLE_TOKEN = {
  system: SPECIAL_TOKENS.system,
  developer: SPECIAL_TOKENS.system,
  user: SPECIAL_TOKENS.user,
  assistant: SPECIAL_TOKENS.assistant,
  tool: SPECIAL_TOKENS.tool,
} as const;

/** Render OpenAI-style messages to prompt token ids (see the template at the top of this file). */
export function renderChat(messages: readonly ChatMessage[], opts: RenderOptions = {}): number[] {
  const msgs = messages.map((m) => chatMessageSchema.parse(m));
  const toolsText = opts.tools?.length
    ? "\n\n# Tools\n" +
      opts.tools
        .map((t) =>
          JSON.stringify({
            name: t.function.name,
            description: t.function.description,
            parameters: t.function.parameters,
          }),
        )
        .join("\n")
    : "";
  const ids: number[] = [];
  if (toolsText && !msgs.some((m) => m.role === "system" || m.role === "developer")) {
    ids.push(SPECIAL_TOKENS.system, ...encode(toolsText.trimStart()), END_ID);
  }
  let toolsPending = toolsText;
  for (const m of msgs) {
    let text = contentText(m.content);
    if ((m.role === "system" || m.role === "developer") && toolsPending) {
      text += toolsPending;
      toolsPending = "";
    }
    if (m.role === "assistant" && m.tool_calls?.length) {
      const calls = m.tool_calls.map(renderToolCall).join("\n");
      text = text ? `${text}\n${calls}` : calls;
    }
    ids.push(ROLE_TOKEN[m.role], ...encode(text), END_ID);
  }
  if (opts.addGenerationPrompt) ids.push(SPECIAL_TOKENS.assistant);
  return ids;
}
