// The teacher's context for on-policy distillation (OpenClaw-RL `openclaw-opd/openclaw_opd_api_server.py` `_append_hint_to_messages`): the
// original request with the accepted hint appended to the last user message.
import { flattenContent } from "./messages";
import type { ChatMessage } from "./schemas";

export const HINT_MARKER = "[user's hint / instruction]";

/**
 * Deep copy of `messages` with `\n\n[user's hint / instruction]\n{hint}` appended to the last `user`
 * message (the last message when no user message exists; a new user message when the list is empty).
 * The target's content becomes plain text (string, or text parts joined by a space) and is trimmed.
 */
export function hintedTeacherMessages(messages: readonly ChatMessage[], hint: string): ChatMessage[] {
  const trimmedHint = hint.trim();
  if (messages.length === 0) return [{ role: "user", content: `${HINT_MARKER}\n${trimmedHint}` }];
  const cloned = structuredClone(messages) as ChatMessage[];
  let target = cloned.length - 1;
  for (let i = cloned.length - 1; i >= 0; i--) {
    if (cloned[i].role === "user") {
      target = i;
      break;
    }
  }
  const content = flattenContent(cloned[target].content);
  cloned[target].content = `${content}\n\n${HINT_MARKER}\n${trimmedHint}`.trim();
  return cloned;
}
