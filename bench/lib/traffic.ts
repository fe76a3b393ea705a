// Steady, deterministic agent traffic through the recording proxy with the official `openai` client: each
// user holds multi-turn header sessions (X-Session-Id, X-Turn-Type: main, X-Session-Done on the last turn)
// and keeps its history as an agent does; odd users stream. Every request's outcome is kept, so afterwards
// each response that completed with a 2xx can be matched to its turn in the database.
import OpenAI from "openai";

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export interface RequestRecord {
  user: number;
  session: string;
  startedAt: number;
  endedAt: number;
  /** The full response arrived with a 2xx status. */
  ok: boolean;
  status: number | null;
  turnId: string | null;
  error: string | null;
}

export interface TrafficOptions {
  proxyUrl: string;
  apiKey: string;
  /** The experiment's slug (the `model` the client asks for). */
  model: string;
  users: number;
  turnsPerSession: number;
  maxTokens: number;
  /** Pause between a user's requests. */
  thinkMs: number;
  /** Pause after a failed request (the proxy is down, say). */
  retryPauseMs?: number;
  timeoutMs?: number;
  tag?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Traffic {
  readonly records: RequestRecord[] = [];
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(private readonly o: TrafficOptions) {}

  start(): void {
    this.running = true;
    this.loops = Array.from({ length: this.o.users }, (_, u) => this.user(u));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private async user(u: number): Promise<void> {
    const client = new OpenAI({
      apiKey: this.o.apiKey,
      baseURL: `${this.o.proxyUrl}/v1`,
      maxRetries: 0,
      timeout: this.o.timeoutMs ?? 30_000,
    });
    const stream = u % 2 === 1;
    for (let s = 0; this.running; s++) {
      const session = `${this.o.tag ?? "traffic"}-u${u}-s${s}`;
      let history: Msg[] = [{ role: "system", content: `You are agent ${u}.` }];
      for (let i = 0; i < this.o.turnsPerSession && this.running; i++) {
        // The reply is the previous turn's next state: approvals and corrections give the judge a verdict.
        const cue = i === 0 ? "" : (u + s + i) % 2 === 0 ? "Thanks, that works. " : "No, that's wrong. ";
        const messages: Msg[] = [
          ...history,
          { role: "user", content: `${cue}Task ${i} of session ${s}: list ${u + i} items.` },
        ];
        const headers: Record<string, string> = { "X-Session-Id": session, "X-Turn-Type": "main" };
        if (i === this.o.turnsPerSession - 1) headers["X-Session-Done"] = "true";
        const rec: RequestRecord = {
          user: u,
          session,
          startedAt: Date.now(),
          endedAt: 0,
          ok: false,
          status: null,
          turnId: null,
          error: null,
        };
        this.records.push(rec);
        try {
          let content = "";
          if (stream) {
            const r = await client.chat.completions
              .create({ model: this.o.model, messages, max_tokens: this.o.maxTokens, stream: true }, { headers })
              .withResponse();
            rec.status = r.response.status;
            rec.turnId = r.response.headers.get("x-turn-id");
            for await (const c of r.data) content += c.choices[0]?.delta.content ?? "";
          } else {
            const r = await client.chat.completions
              .create({ model: this.o.model, messages, max_tokens: this.o.maxTokens }, { headers })
              .withResponse();
            rec.status = r.response.status;
            rec.turnId = r.response.headers.get("x-turn-id");
            content = r.data.choices[0]?.message.content ?? "";
          }
          rec.ok = rec.status >= 200 && rec.status < 300 && rec.turnId !== null;
          history = [...messages, { role: "assistant", content }];
        } catch (err) {
          rec.status = err instanceof OpenAI.APIError ? (err.status ?? rec.status) : rec.status;
          rec.error = (err as Error).message.slice(0, 200);
          rec.ok = false;
        } finally {
          rec.endedAt = Date.now();
        }
        // A failed request leaves its session behind (as an agent whose call failed would start over).
        if (!rec.ok) {
          await sleep(this.o.retryPauseMs ?? 200);
          break;
        }
        await sleep(this.o.thinkMs);
      }
    }
  }

  okTurnIds(): string[] {
    return this.records.filter((r) => r.ok).map((r) => r.turnId!);
  }

  /** Requests that started in [from, to), and how many of them completed with a 2xx. */
  during(from: number, to: number): { sent: number; ok: number } {
    const rs = this.records.filter((r) => r.startedAt >= from && r.startedAt < to);
    return { sent: rs.length, ok: rs.filter((r) => r.ok).length };
  }

  /** The first 2xx that started at or after `t` (null while none). */
  firstOkAfter(t: number): RequestRecord | null {
    return this.records.filter((r) => r.ok && r.startedAt >= t).sort((a, b) => a.endedAt - b.endedAt)[0] ?? null;
  }
}
