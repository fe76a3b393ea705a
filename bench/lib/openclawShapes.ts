// Conversations shaped like what stock OpenClaw sends to an "openai-completions" provider (issue 10's
// measurements, written by us): a large fixed system prompt, 12–23 tools, the full history resent on
// every request, always streaming with include_usage and max_completion_tokens, `store: false` (2026.3.1)
// or `tool_choice: "auto"` (2026.9.6), user content as text parts or with a `[date]` envelope, tool
// round trips, and — in 2026.9.6 — an internal-context user message appended to every request.
// No session headers. Used by the stitching tests and the benchmark.
import type OpenAI from "openai";

export type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;
export type OpenClawVersion = "2026.3.1" | "2026.9.6";
export type Body = Record<string, unknown> & { messages: Msg[] };

export const SUMMARIZER_PROMPT =
  "You are a context summarization assistant. Your task is to read a conversation between a user and an AI coding assistant, then produce a structured summary following the exact format specified.\n\nDo NOT continue the conversation. Do NOT respond to any questions in the conversation. ONLY output the structured summary.";

/** A deterministic system prompt of about `chars` characters. */
export function systemPrompt(version: OpenClawVersion, chars: number): string {
  const parts = [`You are a personal assistant running inside OpenClaw ${version}.`];
  for (let i = 0; parts.join("\n").length < chars; i++) {
    parts.push(
      `## Section ${i}\nFollow rule ${i}: keep answers precise, cite files by path, never reveal secrets, prefer tools over guessing (${"policy ".repeat(12)}).`,
    );
  }
  return parts.join("\n").slice(0, chars);
}

export function tools(n: number, charsEach = 1100): OpenAI.Chat.Completions.ChatCompletionTool[] {
  return Array.from({ length: n }, (_, i) => ({
    type: "function" as const,
    function: {
      name: i === 0 ? "get_weather" : `tool_${i}`,
      description:
        `Tool ${i}. ${"Describes what the tool does and when to use it. ".repeat(Math.max(1, Math.floor(charsEach / 60)))}`.slice(
          0,
          charsEach,
        ),
      parameters: {
        type: "object",
        properties: { city: { type: "string", description: "City name" }, limit: { type: "integer", minimum: 1 } },
        required: ["city"],
      },
    },
  }));
}

export function internalContext(turn: number): Msg {
  return {
    role: "user",
    content: `<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>\n{"runtime":"openclaw","channel":"cli","turn":${turn},"time":"2026-09-06T10:${String(turn).padStart(2, "0")}:00Z"}\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>`,
  };
}

const date = (n: number) => `[Mon 2026-03-02 10:${String(n % 60).padStart(2, "0")} UTC] `;

export interface Reply {
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  /** The proxy's X-Turn-Id for this request. */
  turnId?: string;
}

/** One request the agent sent, what it expects as the next state of that turn, and the reply. */
export interface SentRequest {
  body: Body;
  kind: "main" | "compaction";
  reply: Reply;
  /** The message the client appended after this turn's reply (filled by the next request), null if none. */
  nextState: Msg | null;
}

export class OpenClawAgent {
  history: Msg[] = [];
  readonly sent: SentRequest[] = [];
  private turn = 0;
  private readonly system: Msg;
  private readonly toolList: OpenAI.Chat.Completions.ChatCompletionTool[];
  private lastMain: SentRequest | null = null;

  constructor(
    readonly version: OpenClawVersion,
    private readonly send: (body: Body) => Promise<Reply>,
    sizes: { systemChars?: number; tools?: number } = {},
  ) {
    this.system = {
      role: "system",
      content: systemPrompt(version, sizes.systemChars ?? (version === "2026.3.1" ? 25_000 : 48_000)),
    };
    this.toolList = tools(sizes.tools ?? (version === "2026.3.1" ? 12 : 23));
  }

  private body(messages: Msg[]): Body {
    const base = {
      model: "openclaw-model",
      messages,
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 8192,
      tools: this.toolList,
    };
    return this.version === "2026.3.1" ? { ...base, store: false } : { ...base, tool_choice: "auto" };
  }

  private async main(appended: Msg, messages: Msg[]): Promise<Reply> {
    if (this.lastMain) this.lastMain.nextState = appended;
    const body = this.body(this.version === "2026.9.6" ? [...messages, internalContext(this.turn)] : messages);
    const reply = await this.send(body);
    const req: SentRequest = { body, kind: "main", reply, nextState: null };
    this.sent.push(req);
    this.lastMain = req;
    return reply;
  }

  /** A user message and the tool round trips that follow it. */
  async say(text: string): Promise<void> {
    const n = ++this.turn;
    // 2026.3.1 sends the new message as text parts with a date envelope and keeps it as a string;
    // 2026.9.6 sends a dated string and keeps it undated.
    const current: Msg =
      this.version === "2026.3.1"
        ? { role: "user", content: [{ type: "text", text: `${date(n)}${text}` }] }
        : { role: "user", content: `${date(n)}${text}` };
    const kept: Msg =
      this.version === "2026.3.1" ? { role: "user", content: `${date(n)}${text}` } : { role: "user", content: text };
    let reply = await this.main(current, [this.system, ...this.history, current]);
    this.history.push(kept);
    for (let round = 0; reply.toolCalls.length && round < 3; round++) {
      // 2026.9.6 renumbers tool-call ids the way its transcript stores them.
      const ids = reply.toolCalls.map((c, i) => (this.version === "2026.9.6" ? `toolu_${n}_${round}_${i}` : c.id));
      const assistant: Msg = {
        role: "assistant",
        content: this.version === "2026.3.1" ? "" : null,
        tool_calls: reply.toolCalls.map((c, i) => ({
          id: ids[i]!,
          type: "function" as const,
          function: { name: c.name, arguments: c.arguments },
        })),
      };
      const results: Msg[] = reply.toolCalls.map((c, i) => ({
        role: "tool" as const,
        tool_call_id: ids[i]!,
        content: JSON.stringify({ ok: true, tool: c.name, temperature: 21 }),
      }));
      this.history.push(assistant, ...results);
      reply = await this.main(results.at(-1)!, [this.system, ...this.history]);
    }
    this.history.push({ role: "assistant", content: reply.content ?? "" });
  }

  /** A compaction: a side call summarizing the history, which is then replaced by the summary + the last exchange. */
  async compact(): Promise<string> {
    const transcript = this.history
      .map(
        (m) =>
          `[${m.role === "user" ? "User" : m.role === "assistant" ? "Assistant" : "Tool"}]: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`,
      )
      .join("\n");
    const body: Body = {
      model: "openclaw-model",
      messages: [
        { role: "system", content: SUMMARIZER_PROMPT },
        {
          role: "user",
          content: `<conversation>\n${transcript}\n</conversation>\n\nThe messages above are a conversation to summarize. Create a structured context checkpoint summary.`,
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 4096,
    };
    const reply = await this.send(body);
    this.sent.push({ body, kind: "compaction", reply, nextState: null });
    const summary = reply.content ?? "";
    const keep = this.history.slice(-2);
    this.history = [
      {
        role: "user",
        content: `The conversation history before this point was compacted into the following summary:\n\n<summary>\n${summary}\n</summary>`,
      },
      ...keep,
    ];
    return summary;
  }
}

/** What a model answers in these conversations (the fake upstream's responder). */
export function scriptedAnswer(body: Record<string, unknown>): {
  content?: string;
  toolCalls?: { name: string; arguments: string }[];
} {
  const messages = (body.messages ?? []) as Msg[];
  const text = (m: Msg | undefined) =>
    m
      ? typeof m.content === "string"
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map((p) => ("text" in p ? p.text : "")).join("")
          : ""
      : "";
  if (text(messages[0]).includes("context summarization assistant"))
    return {
      content:
        "## Goal\nThe user is planning a trip to Paris: weather checked, restaurant chosen, train tickets pending.",
    };
  const real = messages.filter((m) => !text(m).startsWith("<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"));
  const last = real.at(-1);
  if (last?.role === "tool") return { content: `Done: ${text(last).slice(0, 40)}` };
  const said = text(last);
  if (/weather/i.test(said))
    return { toolCalls: [{ name: "get_weather", arguments: JSON.stringify({ city: "Paris", limit: 1 }) }] };
  return { content: `Sure — ${said.replace(/^\[[^\]]*\]\s*/, "").slice(0, 60)}` };
}

/** The part of a stream chunk's delta an agent keeps: its text and its tool-call pieces. */
export interface ReplyDelta {
  content?: string | null;
  tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] | null;
}

/** Adds one delta to `reply` (text appended, tool-call pieces merged by index). */
export function mergeDelta(reply: Reply, d: ReplyDelta): void {
  if (typeof d.content === "string" && d.content) reply.content = (reply.content ?? "") + d.content;
  for (const tc of d.tool_calls ?? []) {
    const call = (reply.toolCalls[tc.index] ??= { id: "", name: "", arguments: "" });
    if (tc.id) call.id = tc.id;
    if (tc.function?.name) call.name += tc.function.name;
    if (tc.function?.arguments) call.arguments += tc.function.arguments;
  }
}

/** Reads an OpenAI stream into the reply an agent keeps. */
export async function collect(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>): Promise<Reply> {
  const reply: Reply = { content: null, toolCalls: [] };
  for await (const c of stream) {
    const d = c.choices[0]?.delta;
    if (d) mergeDelta(reply, d);
  }
  return reply;
}
