// Import of OpenClaw-RL record files (turn records and `_prm.jsonl` PRM records, in any order, or our own
// export whose lines carry both) into an experiment. Turns are stored exactly as the proxy stores them
// (system blob + per-lane deltas) and are idempotent: a turn's request id derives from (experiment,
// session, lane, turn), and a PRM record becomes one judgment per (turn, judge version), so importing a
// file twice adds nothing. Turns without a PRM record but with a next state are left for the judge.
import { db, type Prisma } from "../platform/db/client";
import { audit } from "../access/audit";
import { actorOf, assertExperimentAccess, type Principal } from "../access/principal";
import { dispatchTurn } from "../judge/core/dispatch";
import { meanVote } from "../judge/core/vote";
import { notFound } from "../platform/errors";
import { blobOf, encodeDelta, messageDigests, splitSystem } from "../recording/compact";
import { parseLine, voteIn, type PrmRecord, type TurnRecord } from "./openclaw";

export const IMPORT_JUDGE_VERSION = "openclaw-import";
const MAX_ERRORS = 100;

type Lane = "MAIN" | "SIDE";

/** Our export's extra fields; OpenClaw's own files have none of them. */
interface Extra {
  turn_type?: string;
  policy_version?: number;
  token_ids?: number[];
  logprobs?: number[];
  tools?: unknown;
  judgment?: {
    judge_version?: string;
    judge_kind?: string;
    model?: string;
    prompt_version?: string;
    eval_score?: number | null;
    teacher_logprobs?: number[];
  } | null;
  labels?: {
    source?: string;
    value?: number;
    hint?: string | null;
    exclude?: boolean | null;
    comment?: string | null;
  }[];
}

interface Entry {
  record: TurnRecord;
  lane: Lane;
  extra: Extra;
  prm: PrmRecord | null;
}

export interface ImportReport {
  lines: number;
  sessions: number;
  turns: { created: number; skipped: number };
  judgments: { created: number; skipped: number };
  labels: number;
  /** PRM records whose turn is neither in the file nor already stored. */
  orphanPrm: number;
  errors: { line: number; message: string }[];
  errorCount: number;
}

const nums = (v: unknown): number[] =>
  Array.isArray(v) && v.every((x) => typeof x === "number") ? (v as number[]) : [];

/** `lines`: the JSONL body line by line as it arrives (nothing is written until every line has been read). */
export async function importOpenClaw(
  p: Principal,
  experimentId: string,
  lines: AsyncIterable<string>,
): Promise<ImportReport> {
  assertExperimentAccess(p, experimentId);
  const experiment = await db().experiment.findUnique({
    where: { id: experimentId },
    select: { id: true, config: true },
  });
  if (!experiment) throw notFound("Experiment", experimentId);
  const method = ((experiment.config as { method?: string }).method ?? "combine") as "grpo" | "opd" | "combine";

  const report: ImportReport = {
    lines: 0,
    sessions: 0,
    turns: { created: 0, skipped: 0 },
    judgments: { created: 0, skipped: 0 },
    labels: 0,
    orphanPrm: 0,
    errors: [],
    errorCount: 0,
  };
  const entries = new Map<string, Entry>();
  const prms = new Map<string, PrmRecord>();
  const key = (session: string, lane: Lane, turn: number) => `${session}\u0000${lane}\u0000${turn}`;
  let i = -1;
  for await (const raw of lines) {
    i++;
    const line = raw.trim();
    if (!line) continue;
    report.lines++;
    const parsed = parseLine(line);
    if (parsed.kind === "error") {
      report.errorCount++;
      if (report.errors.length < MAX_ERRORS) report.errors.push({ line: i + 1, message: parsed.message });
      continue;
    }
    if (parsed.kind === "prm") {
      prms.set(key(parsed.prm.record.session_id, "MAIN", parsed.prm.record.turn), parsed.prm);
      continue;
    }
    const extra = ((JSON.parse(line) as { ocrl?: Extra }).ocrl ?? {}) as Extra;
    const lane: Lane = extra.turn_type === "side" ? "SIDE" : "MAIN";
    const k = key(parsed.record.session_id, lane, parsed.record.turn);
    entries.set(k, { record: parsed.record, lane, extra, prm: parsed.prm });
  }
  for (const [k, prm] of prms) {
    const e = entries.get(k);
    if (e) e.prm = prm;
  }

  // Appended in place: copying the list per line made one long session quadratic in its length.
  const bySession = new Map<string, Entry[]>();
  for (const e of entries.values()) {
    const list = bySession.get(e.record.session_id);
    if (list) list.push(e);
    else bySession.set(e.record.session_id, [e]);
  }
  const prmOnly = [...prms.entries()].filter(([k]) => !entries.has(k)).map(([, v]) => v);

  for (const [externalId, list] of bySession) {
    list.sort((a, b) => a.record.turn - b.record.turn);
    await importSession(p, experimentId, method, externalId, list, report);
  }
  report.sessions = bySession.size;
  // PRM records for turns imported earlier (turn file first, PRM file later).
  for (const prm of prmOnly) {
    const turn = await db().turn.findFirst({
      where: { session: { experimentId, externalId: prm.record.session_id }, turnType: "MAIN", index: prm.record.turn },
      select: { id: true, nextState: true },
    });
    if (!turn) {
      report.orphanPrm++;
      continue;
    }
    await db().$transaction((tx) => writeJudgment(tx, method, turn.id, turn.nextState !== null, prm, {}, report));
  }
  await db().$transaction((tx) =>
    audit(tx, p, "import.openclaw", "experiment", experimentId, null, {
      ...report,
      errors: report.errors.slice(0, 10),
    }),
  );
  return report;
}

async function importSession(
  p: Principal,
  experimentId: string,
  method: "grpo" | "opd" | "combine",
  externalId: string,
  list: Entry[],
  report: ImportReport,
): Promise<void> {
  // reduce, not Math.max(...times): spreading a very long session overflows the call stack.
  const times = list.map((e) => e.record.timestamp?.getTime() ?? Date.now());
  const last = new Date(times.reduce((a, b) => Math.max(a, b), -Infinity));
  const first = new Date(times.reduce((a, b) => Math.min(a, b), Infinity));
  await db().$transaction(async (tx) => {
    const session = await tx.agentSession.upsert({
      where: { experimentId_externalId: { experimentId, externalId } },
      create: {
        experimentId,
        externalId,
        idSource: "import",
        done: true,
        doneAt: last,
        lastTurnAt: last,
        createdAt: first,
        turnCount: list.length,
      },
      update: {},
    });
    const blobs: { hash: string; kind: string; content: Prisma.InputJsonValue; bytes: number }[] = [];
    const prev: Record<Lane, string[] | null> = { MAIN: null, SIDE: null };
    const rows: Prisma.TurnCreateManyInput[] = [];
    for (const e of list) {
      const r = e.record;
      const { system, body } = splitSystem(r.messages);
      const sys = system ? blobOf("system", system) : null;
      const tools = e.extra.tools ? blobOf("tools", e.extra.tools) : null;
      for (const b of [sys, tools])
        if (b) blobs.push({ hash: b.hash, kind: b.kind, content: b.content as Prisma.InputJsonValue, bytes: b.bytes });
      const digests = messageDigests(body);
      const delta = encodeDelta(prev[e.lane], digests, body);
      prev[e.lane] = digests;
      const next = r.next_state ?? null;
      const nextMessage = typeof next === "string" ? { role: "user", content: next } : next;
      const at = r.timestamp ?? new Date();
      rows.push({
        requestId: `import:${experimentId}:${externalId}:${e.lane}:${r.turn}`,
        experimentId,
        sessionId: session.id,
        index: r.turn,
        turnType: e.lane,
        typeSource: "import",
        systemHash: sys?.hash ?? null,
        toolsHash: tools?.hash ?? null,
        messagesOffset: delta.messagesOffset,
        messagesDelta: delta.messagesDelta as Prisma.InputJsonValue,
        content: r.response_text ?? null,
        toolCalls: r.tool_calls?.length ? (r.tool_calls as Prisma.InputJsonValue) : undefined,
        tokenIds: nums(e.extra.token_ids),
        logprobs: nums(e.extra.logprobs),
        policyVersion: typeof e.extra.policy_version === "number" ? e.extra.policy_version : 0,
        nextState: nextMessage ? (nextMessage as Prisma.InputJsonValue) : undefined,
        nextStateRole: nextMessage ? String(nextMessage.role) : null,
        nextStateAt: nextMessage ? at : null,
        createdAt: at,
      });
    }
    if (blobs.length) await tx.blob.createMany({ data: blobs, skipDuplicates: true });
    const created = await tx.turn.createManyAndReturn({
      data: rows,
      skipDuplicates: true,
      select: { id: true, index: true, turnType: true, nextState: true },
    });
    report.turns.created += created.length;
    report.turns.skipped += rows.length - created.length;
    const createdKeys = new Set(created.map((c) => `${c.turnType}|${c.index}`));
    const stored = await tx.turn.findMany({
      where: { sessionId: session.id, requestId: { in: rows.map((r) => r.requestId) } },
      select: { id: true, index: true, turnType: true, nextState: true },
    });
    const byKey = new Map(stored.map((t) => [`${t.turnType}|${t.index}`, t]));
    for (const e of list) {
      const t = byKey.get(`${e.lane}|${e.record.turn}`);
      if (!t) continue;
      if (e.prm) await writeJudgment(tx, method, t.id, t.nextState !== null, e.prm, e.extra, report);
      // Labels come along only with a turn this import created, so a second import never duplicates them.
      if (createdKeys.has(`${e.lane}|${e.record.turn}`) && e.extra.labels?.length) {
        const labels = e.extra.labels.filter(
          (l) => (l.source === "reviewer" || l.source === "user") && typeof l.value === "number",
        );
        await tx.label.createMany({
          data: labels.map((l) => ({
            turnId: t.id,
            source: l.source === "reviewer" ? ("REVIEWER" as const) : ("USER" as const),
            value: l.value!,
            hint: l.hint ?? null,
            exclude: l.exclude ?? null,
            comment: l.comment ?? null,
            // Attributed to whoever imported them (and the key they used), like every other label.
            userId: actorOf(p).actorUserId,
            apiKeyId: actorOf(p).actorKeyId,
          })),
        });
        report.labels += labels.length;
      }
    }
    await tx.agentSession.update({
      where: { id: session.id },
      data: {
        turnCount: await tx.turn.count({ where: { sessionId: session.id } }),
        lastTurnAt: session.lastTurnAt > last ? session.lastTurnAt : last,
      },
    });
    // One long session (hundreds of 50 KB turns) does not fit Prisma's 5 s default for an interactive transaction.
  }, IMPORT_SESSION_TX);
}

const IMPORT_SESSION_TX = { timeout: 120_000, maxWait: 10_000 };

async function writeJudgment(
  tx: Prisma.TransactionClient,
  method: "grpo" | "opd" | "combine",
  turnId: string,
  hasNextState: boolean,
  prm: PrmRecord,
  extra: Extra,
  report: ImportReport,
): Promise<void> {
  const j = extra.judgment ?? null;
  const teacher = nums(j?.teacher_logprobs);
  const votes =
    prm.kind === "rl"
      ? prm.record.votes.map((v, index) => {
          const value = voteIn(v);
          const representative = index === prm.record.votes.findIndex((x) => voteIn(x) === clamp(prm.record.score));
          return {
            kind: "eval",
            index,
            value,
            hint: null,
            raw: representative ? (prm.record.representative_eval ?? "") : "",
            error: value === null ? "fail" : null,
          };
        })
      : prm.record.votes.map((v, i) => {
          const value = voteIn(v.score);
          return {
            kind: "hint",
            index: v.vote_id ?? i,
            value,
            hint: v.hint ?? null,
            raw: v.raw ?? "",
            error: value === null ? "fail" : null,
          };
        });
  const score = clamp(prm.kind === "rl" ? prm.record.score : (prm.record.score ?? 0));
  const hint = prm.kind === "opd" && prm.record.accepted && prm.record.hint ? prm.record.hint : null;
  const dispatch = dispatchTurn({ method, hasNextState, score, hintUsable: hint !== null && teacher.length > 0 });
  const inserted = await tx.judgment.createManyAndReturn({
    data: [
      {
        turnId,
        judgeVersion: j?.judge_version ?? IMPORT_JUDGE_VERSION,
        judgeKind: j?.judge_kind ?? "imported",
        model: j?.model ?? "openclaw-prm",
        promptVersion: j?.prompt_version ?? "openclaw",
        settings: {
          source: "openclaw-import",
          ...(prm.kind === "opd" ? { teacherLogprobLen: prm.record.teacher_logprob_len ?? null } : {}),
        },
        score,
        evalScore: j?.eval_score ?? (prm.kind === "rl" ? meanVote(prm.record.votes.map(voteIn)) : null),
        hint,
        hintAccepted: hint !== null,
        teacherLogprobs: teacher,
        dispatch: dispatch.kind,
        excluded: dispatch.excluded,
        excludeReason: dispatch.excludeReason,
      },
    ],
    skipDuplicates: true,
    select: { id: true },
  });
  const created = inserted[0];
  if (!created) {
    report.judgments.skipped++;
    return;
  }
  report.judgments.created++;
  if (votes.length)
    await tx.judgeVote.createMany({ data: votes.map((v) => ({ ...v, judgmentId: created.id })), skipDuplicates: true });
}

function clamp(v: number): -1 | 0 | 1 {
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}
