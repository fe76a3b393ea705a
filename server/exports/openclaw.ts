// OpenClaw-RL's record formats (OpenClaw-RL `openclaw-rl/openclaw_api_server.py` record writer), as zod schemas, and the mapping between them and
// our turns and judgments. Turn records: session_id, turn, timestamp, messages, prompt_text, response_text,
// tool_calls, next_state. PRM records (the `<record>_prm.jsonl` file): RL {session_id, turn, score, votes
// (int or "fail"), representative_eval?}; OPD/combine {session_id, turn, accepted, hint, hint_len,
// votes[{vote_id, score, hint, raw}], teacher_logprob_len}.
import { z } from "zod";

const SessionId = z.union([z.string().min(1).max(200), z.number()]).transform(String);
const TurnNo = z.number().int().min(0).max(1_000_000);

/** Epoch seconds (Python's time.time()), epoch ms, or an ISO string. */
export const TimestampSchema = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const d = typeof v === "number" ? new Date(v < 1e11 ? v * 1000 : v) : new Date(v);
  if (Number.isNaN(d.getTime())) {
    ctx.addIssue({ code: "custom", message: "timestamp must be epoch seconds/ms or an ISO date" });
    return z.NEVER;
  }
  return d;
});

const Message = z.looseObject({ role: z.string(), content: z.unknown().optional() });

export const TurnRecordSchema = z.looseObject({
  session_id: SessionId,
  turn: TurnNo,
  timestamp: TimestampSchema.optional(),
  messages: z.array(Message).max(10_000),
  prompt_text: z.string().nullish(),
  response_text: z.string().nullish(),
  tool_calls: z.array(z.unknown()).nullish(),
  next_state: z.union([Message, z.string()]).nullish(),
});
export type TurnRecord = z.output<typeof TurnRecordSchema>;

const Vote = z.union([z.number().int(), z.literal("fail"), z.null()]);

export const RlPrmRecordSchema = z.looseObject({
  session_id: SessionId,
  turn: TurnNo,
  score: z.number(),
  votes: z.array(Vote).max(64),
  representative_eval: z.string().nullish(),
});

export const OpdPrmRecordSchema = z.looseObject({
  session_id: SessionId,
  turn: TurnNo,
  accepted: z.boolean(),
  hint: z.string().nullish(),
  hint_len: z.number().int().nullish(),
  votes: z
    .array(
      z.looseObject({
        vote_id: z.number().int().optional(),
        score: Vote.optional(),
        hint: z.string().nullish(),
        raw: z.string().nullish(),
      }),
    )
    .max(64),
  teacher_logprob_len: z.number().int().nullish(),
  /** Not in the reference's OPD record; our export adds the eval score when there is one. */
  score: z.number().nullish(),
});

export type RlPrmRecord = z.output<typeof RlPrmRecordSchema>;
export type OpdPrmRecord = z.output<typeof OpdPrmRecordSchema>;
export type PrmRecord = { kind: "rl"; record: RlPrmRecord } | { kind: "opd"; record: OpdPrmRecord };

export type ParsedLine =
  | { kind: "turn"; record: TurnRecord; prm: PrmRecord | null }
  | { kind: "prm"; prm: PrmRecord }
  | { kind: "error"; message: string };

/** Classifies one JSONL line: a turn record (optionally carrying our `prm` field), or a PRM record. */
export function parseLine(line: string): ParsedLine {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (err) {
    return { kind: "error", message: `not JSON: ${(err as Error).message}` };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json))
    return { kind: "error", message: "not a JSON object" };
  const o = json as Record<string, unknown>;
  if ("messages" in o || "response_text" in o) {
    const t = TurnRecordSchema.safeParse(o);
    if (!t.success) return { kind: "error", message: issues(t.error) };
    let prm: PrmRecord | null = null;
    if (o.prm !== undefined && o.prm !== null) {
      const p = parsePrm({ session_id: o.session_id, turn: o.turn, ...(o.prm as object) });
      if ("message" in p) return { kind: "error", message: `prm: ${p.message}` };
      prm = p;
    }
    return { kind: "turn", record: t.data, prm };
  }
  const p = parsePrm(o);
  return "message" in p ? { kind: "error", message: p.message } : { kind: "prm", prm: p };
}

function parsePrm(o: unknown): PrmRecord | { message: string } {
  const isOpd = typeof o === "object" && o !== null && "accepted" in o;
  if (isOpd) {
    const r = OpdPrmRecordSchema.safeParse(o);
    return r.success ? { kind: "opd", record: r.data } : { message: issues(r.error) };
  }
  const r = RlPrmRecordSchema.safeParse(o);
  return r.success ? { kind: "rl", record: r.data } : { message: issues(r.error) };
}

function issues(err: z.ZodError): string {
  return err.issues
    .slice(0, 3)
    .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}

/** A vote as OpenClaw writes it: the int, or "fail" for a failed/unparsable one. */
export const voteOut = (v: number | null): number | "fail" => (v === null ? "fail" : v);
export const voteIn = (v: number | "fail" | null | undefined): -1 | 0 | 1 | null =>
  v === 1 || v === 0 || v === -1 ? v : null;
