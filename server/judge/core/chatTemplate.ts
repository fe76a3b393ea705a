// Render a conversation with the model's own chat template (the `chat_template` of the checkpoint's
// tokenizer_config.json / chat_template.jinja), the way transformers' `apply_chat_template(...,
// tokenize=False)` does, so a remote teacher scores the reply under the same prompt string the
// policy server built.
//
// Engine: @huggingface/jinja, the JavaScript implementation of the Jinja subset HF chat templates
// use. Like transformers (utils/chat_template_utils.py `_compile_jinja_template`) it lexes with
// trim_blocks + lstrip_blocks, provides `raise_exception` and `strftime_now`, and its `tojson`
// writes Python-json.dumps separators (", " / ": ") without HTML escaping and without
// ensure_ascii. Render variables follow `apply_chat_template`: `messages`, `tools` (null when
// absent), `documents` (null), `add_generation_prompt`, the tokenizer's special tokens
// (`bos_token`, `eos_token`, … whichever the checkpoint defines) and any extra kwargs such as
// `enable_thinking`. Extra kwargs cannot override the four reserved names.
//
// Known, documented differences from Python Jinja2 (none reached by the Qwen fixtures in
// tests/fixtures/chat-templates): JSON numbers that are whole floats (`1.0`) arrive in JavaScript
// as integers and `tojson` writes `1`, where Python writes `1.0`; lone UTF-16 surrogates are
// escaped by JSON.stringify and not by Python.
//
// Fallback: when no template is known for the teacher's model (the experiment carries none and the
// server offers nothing better), callers keep using the hand-written `renderChatML` in
// server/judge/core/teacherClients.ts. Its semantics, for comparison: Qwen-style ChatML; tool
// definitions in the system block with the Qwen2.5/Qwen3 tool preamble; assistant tool calls as
// `<tool_call>` JSON; consecutive tool results grouped in one user turn as `<tool_response>`;
// `developer` mapped to `system`; content parts flattened to text joined by a space; no
// `reasoning_content` / `<think>` handling at all; and the generation prompt
// `<|im_start|>assistant\n` always appended. That is exact only for Qwen2.5 and Qwen3 *instruct*
// templates on string content; the Qwen3 thinking templates (history `<think>` stripping, the
// `<think>\n` generation prompt), Qwen3.5's XML tool calls and other families differ. The preferred
// order is: the server applies its own template (vLLM `/tokenize` with `messages`) > this renderer
// with the checkpoint's template > renderChatML.
import { Template } from "@huggingface/jinja";
import type { ChatMessage } from "./schemas";
import { HINT_MARKER, hintedTeacherMessages } from "./teacher";

/** A chat message as HF templates read it (OpenAI shape plus `reasoning_content`). */
export type TemplateMessage = {
  role: string;
  content?: unknown;
  reasoning_content?: unknown;
  tool_calls?: unknown;
  [key: string]: unknown;
};

export type SpecialTokens = {
  bos_token?: string;
  eos_token?: string;
  pad_token?: string;
  unk_token?: string;
  [key: string]: string | undefined;
};

export type RenderChatTemplateInput = {
  /** The Jinja source of the checkpoint's chat template. */
  template: string;
  messages: readonly TemplateMessage[];
  /** Tool definitions (OpenAI `{type: "function", function: {...}}` objects); absent → `tools` is none. */
  tools?: readonly unknown[] | null;
  /** `add_generation_prompt`; default true (a prompt to score or continue). */
  addGenerationPrompt?: boolean;
  /** The tokenizer's special tokens, as apply_chat_template passes `special_tokens_map`. */
  specialTokens?: SpecialTokens;
  /** Further template kwargs, e.g. `{ enable_thinking: false }` (chat_template_kwargs of the serving path). */
  extra?: Record<string, unknown>;
};

const RESERVED = new Set(["messages", "tools", "documents", "add_generation_prompt"]);

// Parsing is the expensive part; experiments reuse a handful of templates.
const compiled = new Map<string, Template>();
const MAX_COMPILED = 32;

function compile(source: string): Template {
  let t = compiled.get(source);
  if (t) return t;
  t = new Template(source);
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
  compiled.set(source, t);
  return t;
}

/** Plain JSON-like data for the interpreter: drops `undefined` fields (absent in Python too). */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v !== undefined) out[k] = plain(v);
    }
    return out;
  }
  return value;
}

/** The prompt string the model's own template produces (throws the template's raise_exception errors). */
export function renderChatTemplate(input: RenderChatTemplateInput): string {
  const vars: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input.specialTokens ?? {})) if (v !== undefined) vars[k] = v;
  for (const [k, v] of Object.entries(input.extra ?? {})) {
    if (RESERVED.has(k)) throw new Error(`chat template kwarg "${k}" is reserved`);
    if (v !== undefined) vars[k] = plain(v);
  }
  vars.messages = plain(input.messages);
  vars.tools = input.tools && input.tools.length > 0 ? plain(input.tools) : null;
  vars.documents = null;
  vars.add_generation_prompt = input.addGenerationPrompt ?? true;
  return compile(input.template).render(vars);
}

/**
 * A renderer with the `ChatRenderer` shape the teacher clients take (`(messages, tools) => string`),
 * bound to one template and its settings, so it can be passed as `render` to the SGLang teacher.
 */
export function templateRenderer(
  opts: Omit<RenderChatTemplateInput, "messages" | "tools">,
): (messages: readonly TemplateMessage[], tools?: readonly unknown[]) => string {
  compile(opts.template); // fail fast on a template the engine cannot parse
  return (messages, tools) => renderChatTemplate({ ...opts, messages, tools });
}

// Hinted teacher context (OPD): the one hint rule of ./teacher.ts, applied to template messages.

/** `hintedTeacherMessages` for template messages (the target's content becomes its plain text, trimmed). */
export function appendHint(messages: readonly TemplateMessage[], hint: string): TemplateMessage[] {
  return hintedTeacherMessages(messages as readonly ChatMessage[], hint) as TemplateMessage[];
}

/** The text `appendHint` inserts (what a hinted render should add and nothing else). */
export function hintInsertion(hint: string): string {
  return `\n\n${HINT_MARKER}\n${hint.trim()}`;
}

export type HintedRenders = {
  /** The policy's prompt: the recorded messages under the template. */
  policy: string;
  /** The teacher's prompt: the same messages with the hint appended, under the same template and settings. */
  hinted: string;
  hintedMessages: TemplateMessage[];
};

export function renderPolicyAndHinted(
  input: RenderChatTemplateInput & {
    hint: string;
    applyHint?: (messages: readonly TemplateMessage[], hint: string) => TemplateMessage[];
  },
): HintedRenders {
  const { hint, applyHint = appendHint, ...rest } = input;
  const hintedMessages = applyHint(rest.messages, hint);
  return {
    policy: renderChatTemplate(rest),
    hinted: renderChatTemplate({ ...rest, messages: hintedMessages }),
    hintedMessages,
  };
}

/**
 * Whether `hinted` is `policy` with `insertion` inserted at exactly one position (and no other
 * change). Used to check that the teacher context differs from the policy's only by the hint.
 */
export function differsOnlyByInsertion(policy: string, hinted: string, insertion: string): boolean {
  if (hinted.length !== policy.length + insertion.length) return false;
  let p = 0;
  while (p < policy.length && policy[p] === hinted[p]) p++;
  let s = 0;
  while (s < policy.length && policy[policy.length - 1 - s] === hinted[hinted.length - 1 - s]) s++;
  for (let k = Math.max(0, policy.length - s); k <= Math.min(p, policy.length); k++) {
    if (
      hinted.startsWith(insertion, k) &&
      hinted.slice(0, k) === policy.slice(0, k) &&
      hinted.slice(k + insertion.length) === policy.slice(k)
    ) {
      return true;
    }
  }
  return false;
}
