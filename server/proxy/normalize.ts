// How two requests of one conversation are recognised as such although clients rewrite history slightly:
// content arrays vs strings, `[date]` envelopes on user text, tool-call ids, and injected context blocks
// (OpenClaw ≥ 2026.9 appends an internal-context user message to every request).
import type { ChatMessage } from "./schemas";
import { compileSafePattern, type TextPattern } from "../platform/safePattern";

export const OPENCLAW_CONTEXT_BEGIN = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";
export const OPENCLAW_CONTEXT_END = "<<<END_OPENCLAW_INTERNAL_CONTEXT>>>";

/** pi-coding-agent's (OpenClaw's) compaction call; matched only on requests that continue no conversation and send no tools. */
export const BUILTIN_SIDE_PATTERNS = ["context summarization assistant"];

const INLINE_CONTEXT = new RegExp(
  `${escapeRegExp(OPENCLAW_CONTEXT_BEGIN)}[\\s\\S]*?(?:${escapeRegExp(OPENCLAW_CONTEXT_END)}|$)`,
  "g",
);
const DATE_ENVELOPE = /^\[[^\]\n]{0,120}(?:\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2})[^\]\n]{0,120}\]\s*/;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Patterns are case-insensitive RE2 expressions, linear in the text (see platform/safePattern). */
export function compilePatterns(patterns: readonly string[]): TextPattern[] {
  return patterns.map(compileSafePattern);
}

export class ContextMatcher {
  private readonly patterns: TextPattern[];
  constructor(patterns: readonly string[] = []) {
    this.patterns = compilePatterns(patterns);
  }

  isContextText(text: string): boolean {
    if (text.trimStart().startsWith(OPENCLAW_CONTEXT_BEGIN)) return true;
    return this.patterns.some((p) => p.test(text));
  }

  /** Text parts of a message that are not context blocks (null content → []). */
  keptParts(m: ChatMessage): string[] {
    const parts =
      typeof m.content === "string"
        ? [m.content]
        : Array.isArray(m.content)
          ? m.content.filter((p) => p.type === "text").map((p) => p.text ?? "")
          : [];
    if (m.role !== "user") return parts;
    return parts.filter((t) => !this.isContextText(t)).map((t) => t.replace(INLINE_CONTEXT, ""));
  }

  /** A user message made only of context blocks. */
  isContextMessage(m: ChatMessage): boolean {
    if (m.role !== "user") return false;
    const parts = typeof m.content === "string" ? [m.content] : Array.isArray(m.content) ? m.content : [];
    if (parts.length === 0) return false;
    return parts.every((p) => {
      const text = typeof p === "string" ? p : p.type === "text" ? (p.text ?? "") : null;
      return text !== null && this.isContextText(text);
    });
  }
}

function canonicalArgs(args: string | undefined): string {
  if (!args) return "";
  try {
    return stableStringify(JSON.parse(args));
  } catch {
    return args.trim();
  }
}

export function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/**
 * The comparable form of a message, or null when it carries nothing comparable (a context block, an empty
 * assistant message). Ids are ignored: clients may renumber tool calls.
 */
export function normalizeMessage(m: ChatMessage, ctx: ContextMatcher): string | null {
  const role = m.role === "developer" ? "system" : m.role === "function" ? "tool" : m.role;
  if (ctx.isContextMessage(m)) return null;
  const nonText = Array.isArray(m.content)
    ? m.content.filter((p) => p.type !== "text").map((p) => stableStringify(p))
    : [];
  let text = ctx.keptParts(m).join("\n");
  if (role === "user") text = text.replace(DATE_ENVELOPE, "");
  text = text.trim();
  const calls = (m.tool_calls ?? []).map((c) => `${c.function.name}(${canonicalArgs(c.function.arguments)})`);
  if (role === "assistant" && !text && calls.length === 0 && nonText.length === 0) return null;
  return JSON.stringify([role, text, calls, nonText]);
}

export function normalizeAll(messages: readonly ChatMessage[], ctx: ContextMatcher): string[] {
  const out: string[] = [];
  for (const m of messages) {
    const n = normalizeMessage(m, ctx);
    if (n !== null) out.push(n);
  }
  return out;
}

/** Plain text of a normalized message (for the compaction heuristics). */
export function normalizedText(n: string): string {
  return (JSON.parse(n) as [string, string])[1];
}

/**
 * The next state a request carries for the previous main turn: its last message that is not an injected
 * context block (the reference takes messages[-1]; with OpenClaw ≥ 2026.9 that would be the block). Context
 * parts inside a content array are dropped from the returned copy.
 */
export function extractNextState(messages: readonly ChatMessage[], ctx: ContextMatcher): ChatMessage | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === "system" || m.role === "developer" || ctx.isContextMessage(m)) continue;
    if (m.role === "user" && Array.isArray(m.content)) {
      const kept = m.content.filter((p) => !(p.type === "text" && ctx.isContextText(p.text ?? "")));
      if (kept.length !== m.content.length) return { ...m, content: kept };
    }
    return m;
  }
  return null;
}

/** Text of the first system/developer message, or of the first message when there is none. */
export function leadingText(messages: readonly ChatMessage[]): string {
  const m = messages.find((x) => x.role === "system" || x.role === "developer") ?? messages[0];
  if (!m) return "";
  if (typeof m.content === "string") return m.content;
  return Array.isArray(m.content) ? m.content.map((p) => p.text ?? "").join("\n") : "";
}
