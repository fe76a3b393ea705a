/**
 * Fitting a chat into the embedded policy's context by whole messages.
 *
 * Cutting the rendered prompt from the left (what a byte model would do by default) loses the start of the
 * conversation mid-message: in a later turn, the question the user asked; in the OPD teacher's context, which
 * is longer by the hint, even more of it. Agent runtimes drop whole old exchanges instead, and so does this.
 * The candidates, in order, are the messages from the 1st, 2nd, … last user message on (oldest exchanges
 * dropped first), each first with the system message (and the tool definitions rendered into it) and then
 * without it; the first that fits the budget is used. The system message goes before an exchange does: on this
 * model it is mostly tool definitions (~190 bytes), and the exchange it would cost often holds the question.
 * When even the last candidate does not fit, it is cut from the left (its tail is what is kept). The candidates
 * without the system message are suffixes of the full rendering, so a left cut of the last one equals a left
 * cut of the full prompt (how turns were served before this file existed).
 */
import { renderChat, type ChatMessage, type ToolDef } from "./tokenizer";

export interface FitOptions {
  tools?: readonly ToolDef[];
  addGenerationPrompt?: boolean;
}

const isSystem = (m: ChatMessage) => m.role === "system" || m.role === "developer";

/** Every rendering `fitChat` may choose, in the order it tries them (see the file header); the first is the full one. */
export function fitCandidates(messages: readonly ChatMessage[], opts: FitOptions = {}): number[][] {
  const render = (msgs: readonly ChatMessage[], tools?: readonly ToolDef[]) =>
    renderChat(msgs, { addGenerationPrompt: opts.addGenerationPrompt, tools });
  const system = messages.filter(isSystem);
  const rest = messages.filter((m) => !isSystem(m));
  const hasSystem = system.length > 0 || (opts.tools?.length ?? 0) > 0;
  // The first exchange starts at the first message (whatever precedes the first user message goes with it).
  const starts = [0, ...rest.flatMap((m, i) => (m.role === "user" && i > 0 ? [i] : []))];
  const out: number[][] = [];
  for (const start of starts) {
    const tail = rest.slice(start);
    if (hasSystem) out.push(start === 0 ? render(messages, opts.tools) : render([...system, ...tail], opts.tools));
    out.push(render(tail));
  }
  return out;
}

/** The prompt ids of `messages` in at most `budget` tokens, by whole messages first (see the file header). */
export function fitChat(messages: readonly ChatMessage[], budget: number, opts: FitOptions = {}): number[] {
  if (budget < 1) throw new Error(`a prompt needs a budget of at least 1 token, got ${budget}`);
  const candidates = fitCandidates(messages, opts);
  const fits = candidates.find((c) => c.length <= budget);
  if (fits) return fits;
  const last = candidates[candidates.length - 1];
  return last.slice(last.length - budget);
}

/**
 * The prompt a generation of at most `maxTokens` tokens is served from: room is left for min(maxTokens, ctx/2)
 * new tokens (generate.ts fitPrompt then shrinks maxTokens to the room that remains).
 */
export function servingBudget(ctx: number, maxTokens: number): number {
  return ctx - Math.max(1, Math.min(maxTokens, Math.floor(ctx / 2)));
}

/**
 * The prompt that was served, from its recorded length: the candidate of exactly `promptTokens` tokens, else a
 * left cut of the full rendering (a prompt cut inside its last exchange, or a turn served before whole-message
 * fitting existed).
 */
export function servedPrompt(
  messages: readonly ChatMessage[],
  promptTokens: number | null,
  opts: FitOptions = {},
): number[] {
  const candidates = fitCandidates(messages, opts);
  const full = candidates[0];
  if (promptTokens === null || promptTokens <= 0 || promptTokens >= full.length) return full;
  return candidates.find((c) => c.length === promptTokens) ?? full.slice(full.length - promptTokens);
}
