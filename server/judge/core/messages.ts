// Message helpers shared by the judge prompts and the teacher context.
import type { ChatMessage } from "./schemas";

/** Plain text of a message's content: strings as-is, text parts joined by a space (as the reference does). */
export function flattenContent(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .filter((part) => part.type === "text")
      .map((part) => part.text ?? "")
      .join(" ");
  }
  return "";
}

/** `developer` becomes `system` and content becomes plain text, so any chat template can render it. */
export function normalizeForTemplate(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((m) => ({
    ...m,
    role: m.role === "developer" ? "system" : m.role,
    content: m.content === null || m.content === undefined ? m.content : flattenContent(m.content),
  }));
}

type ToolCallLike = { function?: { name?: unknown; arguments?: unknown } };

/**
 * What the judge sees as "the assistant output": the text content followed by one line per tool call,
 * so a turn that only calls a tool is not judged as an empty reply.
 */
export function assistantOutputText(content: string | null | undefined, toolCalls?: unknown): string {
  const lines: string[] = [];
  if (content) lines.push(content);
  if (Array.isArray(toolCalls)) {
    for (const call of toolCalls as ToolCallLike[]) {
      const name = typeof call?.function?.name === "string" ? call.function.name : "unknown";
      const rawArgs = call?.function?.arguments;
      const args = typeof rawArgs === "string" ? rawArgs : JSON.stringify(rawArgs ?? {});
      lines.push(`[tool call] ${name}(${args})`);
    }
  }
  return lines.join("\n");
}

/** Text of the last user message, used when the judge is allowed to see the original request. */
export function lastUserText(messages: readonly ChatMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === "user") return flattenContent(messages[i].content);
  }
  return null;
}
