// Reading an OpenAI-style chat request the way the embedded engine does. The proxy's embedded upstream, the
// trainer (the prompt a turn was served with) and the embedded teacher (that prompt plus a hint) must agree, or
// the teacher scores a different context than the one the student answered.
import { chatMessageSchema, toolDefSchema, type ChatMessage, type ToolDef } from "./tokenizer";

/**
 * An OpenAI-style request as the embedded engine reads it: "function" messages are tool messages, and a tool
 * definition it cannot read is skipped (one bad definition does not reject the turn). null when a message
 * does not parse. The proxy's embedded upstream, the trainer and the embedded teacher all read requests so.
 */
export function parseChatRequest(
  messages: readonly unknown[],
  tools?: unknown,
): { messages: ChatMessage[]; tools: ToolDef[] | undefined } | null {
  const parsed: ChatMessage[] = [];
  for (const m of messages) {
    const obj = (m ?? {}) as Record<string, unknown>;
    const r = chatMessageSchema.safeParse({ ...obj, role: obj.role === "function" ? "tool" : obj.role });
    if (!r.success) return null;
    parsed.push(r.data);
  }
  let toolDefs: ToolDef[] | undefined;
  if (Array.isArray(tools)) {
    toolDefs = [];
    for (const t of tools) {
      const r = toolDefSchema.safeParse(t);
      if (r.success) toolDefs.push(r.data);
    }
  }
  return { messages: parsed, tools: toolDefs };
}
