// What a turn recorded from the upstream's answer, whether it came as one JSON completion or as SSE chunks:
// content, reasoning, tool calls (merged from their streamed pieces), finish reason, usage, and the
// behaviour log-probs / token ids when the backend returned them.

export interface RecordedToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}

export interface RecordedOutput {
  content: string | null;
  reasoning: string | null;
  toolCalls: RecordedToolCall[] | null;
  finishReason: string | null;
  tokenIds: number[];
  logprobs: number[];
  promptTokens: number | null;
  completionTokens: number | null;
  model: string | null;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const int = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : null);

/** vLLM's `return_tokens_as_token_ids` renders tokens as "token_id:123". */
const TOKEN_ID = /^token_id:(\d+)$/;

function readLogprobs(lp: unknown, ids: number[], logprobs: number[]): void {
  if (!isObj(lp) || !Array.isArray(lp.content)) return;
  for (const entry of lp.content) {
    if (!isObj(entry) || typeof entry.logprob !== "number") continue;
    logprobs.push(entry.logprob);
    const m = typeof entry.token === "string" ? TOKEN_ID.exec(entry.token) : null;
    if (m) ids.push(Number(m[1]));
  }
}

function readTokenIds(choice: Obj, ids: number[]): boolean {
  if (!Array.isArray(choice.token_ids)) return false;
  for (const id of choice.token_ids) if (typeof id === "number") ids.push(id);
  return true;
}

function readUsage(out: RecordedOutput, usage: unknown): void {
  if (!isObj(usage)) return;
  out.promptTokens = int(usage.prompt_tokens) ?? out.promptTokens;
  out.completionTokens = int(usage.completion_tokens) ?? out.completionTokens;
}

function empty(): RecordedOutput {
  return {
    content: null,
    reasoning: null,
    toolCalls: null,
    finishReason: null,
    tokenIds: [],
    logprobs: [],
    promptTokens: null,
    completionTokens: null,
    model: null,
  };
}

export function fromCompletion(json: unknown): RecordedOutput {
  const out = empty();
  if (!isObj(json)) return out;
  out.model = str(json.model);
  readUsage(out, json.usage);
  const choice = Array.isArray(json.choices) && isObj(json.choices[0]) ? json.choices[0] : null;
  if (!choice) return out;
  out.finishReason = str(choice.finish_reason);
  const msg = isObj(choice.message) ? choice.message : {};
  out.content = str(msg.content);
  out.reasoning = str(msg.reasoning_content) ?? str(msg.reasoning);
  if (Array.isArray(msg.tool_calls) && msg.tool_calls.length) {
    out.toolCalls = msg.tool_calls.filter(isObj).map((c) => {
      const fn = isObj(c.function) ? c.function : {};
      return {
        id: str(c.id) ?? "",
        type: str(c.type) ?? "function",
        function: { name: str(fn.name) ?? "", arguments: str(fn.arguments) ?? "" },
      };
    });
  }
  const ids: number[] = [];
  const fromLogprobs: number[] = [];
  readLogprobs(choice.logprobs, fromLogprobs, out.logprobs);
  out.tokenIds = readTokenIds(choice, ids) ? ids : fromLogprobs;
  return out;
}

/** Merges streamed chunks; `push` says whether the chunk carried generated output (for time to first token). */
export class StreamAccumulator {
  private readonly out = empty();
  private content = "";
  private reasoning = "";
  private sawContent = false;
  private sawReasoning = false;
  private readonly calls: RecordedToolCall[] = [];
  private readonly explicitIds: number[] = [];
  private readonly lpIds: number[] = [];
  private sawExplicitIds = false;

  push(chunk: unknown): boolean {
    if (!isObj(chunk)) return false;
    this.out.model ??= str(chunk.model);
    readUsage(this.out, chunk.usage);
    if (!Array.isArray(chunk.choices)) return false;
    let generated = false;
    for (const choice of chunk.choices) {
      if (!isObj(choice) || (choice.index !== undefined && choice.index !== 0)) continue;
      const delta = isObj(choice.delta) ? choice.delta : {};
      const c = str(delta.content);
      if (c !== null) {
        this.sawContent = true;
        if (c) {
          this.content += c;
          generated = true;
        }
      }
      const r = str(delta.reasoning_content) ?? str(delta.reasoning);
      if (r) {
        this.sawReasoning = true;
        this.reasoning += r;
        generated = true;
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const tc of delta.tool_calls) {
          if (!isObj(tc)) continue;
          generated = true;
          const i = int(tc.index) ?? this.calls.length;
          const fn = isObj(tc.function) ? tc.function : {};
          const call = (this.calls[i] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
          if (str(tc.id)) call.id = str(tc.id)!;
          if (str(tc.type)) call.type = str(tc.type)!;
          if (str(fn.name)) call.function.name += str(fn.name)!;
          if (str(fn.arguments)) call.function.arguments += str(fn.arguments)!;
        }
      }
      if (str(choice.finish_reason)) this.out.finishReason = str(choice.finish_reason);
      if (readTokenIds(choice, this.explicitIds)) this.sawExplicitIds = true;
      readLogprobs(choice.logprobs, this.lpIds, this.out.logprobs);
    }
    return generated;
  }

  result(): RecordedOutput {
    return {
      ...this.out,
      content: this.sawContent || this.content ? this.content : null,
      reasoning: this.sawReasoning ? this.reasoning : null,
      toolCalls: this.calls.length ? this.calls.filter(Boolean) : null,
      tokenIds: this.sawExplicitIds ? this.explicitIds : this.lpIds,
    };
  }
}
