// Import of OpenClaw-RL record files and JSONL export, through the HTTP endpoints: compact storage that
// reassembles to the recorded messages, PRM records turned into judgments, idempotent re-imports, line-level
// errors, and an export whose OpenClaw fields and PRM records match what went in (and round-trips).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleApi } from "../../../server/gateway/handler";
import { db } from "../../../server/platform/db/client";
import { makeExperiment, makeKey } from "../../helpers/fixtures";
import { reassembleMessages } from "../../../server/recording/reassemble";

let key: string;
beforeAll(async () => {
  key = await makeKey(["write"]);
});
afterAll(() => undefined);

const T = 1_767_225_600; // 2026-01-01T00:00:00Z in epoch seconds
const sys = { role: "system", content: "You are a travel agent." };
const u = (c: string) => ({ role: "user", content: c });
const a = (c: string) => ({ role: "assistant", content: c });

/** Three main turns of one session as OpenClaw's proxy writes them, each with the full request. */
const turnRecords = [
  {
    session_id: "s-1",
    turn: 0,
    timestamp: T,
    messages: [sys, u("Book a flight to Rome")],
    prompt_text: "<render>",
    response_text: "Which date?",
    tool_calls: [],
    next_state: u("March 3rd"),
  },
  {
    session_id: "s-1",
    turn: 1,
    timestamp: T + 10.5,
    messages: [sys, u("Book a flight to Rome"), a("Which date?"), u("March 3rd")],
    prompt_text: "<render>",
    response_text: "Booked for March 4th.",
    tool_calls: [],
    next_state: u("No, I said the 3rd!"),
  },
  {
    session_id: "s-1",
    turn: 2,
    timestamp: T + 30,
    messages: [
      sys,
      u("Book a flight to Rome"),
      a("Which date?"),
      u("March 3rd"),
      a("Booked for March 4th."),
      u("No, I said the 3rd!"),
    ],
    prompt_text: "<render>",
    response_text: "Sorry, fixed: March 3rd.",
    tool_calls: [{ id: "c1", type: "function", function: { name: "rebook", arguments: '{"date":"03-03"}' } }],
    next_state: null,
  },
];
const prmRecords = [
  {
    session_id: "s-1",
    turn: 0,
    score: 1,
    votes: [1, 1, "fail"],
    representative_eval: "The user answered the question: progress. \\boxed{1}",
  },
  { session_id: "s-1", turn: 1, score: -1, votes: [-1, -1, 1], representative_eval: "A correction. \\boxed{-1}" },
];
const opdRecord = {
  session_id: "s-1",
  turn: 1,
  accepted: true,
  hint: "Repeat the date the user gave.",
  hint_len: 30,
  votes: [
    {
      vote_id: 0,
      score: 1,
      hint: "Repeat the date the user gave.",
      raw: "[HINT_START]Repeat the date the user gave.[HINT_END] \\boxed{1}",
    },
  ],
  teacher_logprob_len: 12,
};

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

async function importText(experimentId: string, text: string) {
  const res = await handleApi(
    new Request(`http://local/api/import/openclaw?experimentId=${experimentId}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: text,
    }),
  );
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as {
    lines: number;
    sessions: number;
    turns: { created: number; skipped: number };
    judgments: { created: number; skipped: number };
    labels: number;
    orphanPrm: number;
    errors: { line: number; message: string }[];
    errorCount: number;
  };
}

async function exportLines(experimentId: string, query = "") {
  const res = await handleApi(
    new Request(`http://local/api/export/turns?experimentId=${experimentId}${query}`, {
      headers: { authorization: `Bearer ${key}` },
    }),
  );
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("ndjson");
  return (await res.text())
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown> & { ocrl: Record<string, unknown> });
}

describe("OpenClaw-RL import", () => {
  it("stores turns compactly (reassembling to the recorded messages), turns PRM records into judgments, and is idempotent", async () => {
    const exp = await makeExperiment({ method: "grpo" });
    const report = await importText(exp.id, jsonl([...turnRecords, ...prmRecords]));
    expect(report).toMatchObject({
      lines: 5,
      sessions: 1,
      turns: { created: 3, skipped: 0 },
      judgments: { created: 2, skipped: 0 },
      errorCount: 0,
    });
    const turns = await db().turn.findMany({ where: { experimentId: exp.id }, orderBy: { index: "asc" } });
    expect(turns.map((t) => t.messagesOffset)).toEqual([0, 1, 3]); // deltas: only the new messages are stored
    for (const [i, t] of turns.entries()) expect(await reassembleMessages(t)).toEqual(turnRecords[i]!.messages);
    expect(turns.map((t) => t.content)).toEqual(turnRecords.map((r) => r.response_text));
    expect(turns[1]!.createdAt.toISOString()).toBe(new Date((T + 10.5) * 1000).toISOString());
    expect(turns[2]!.nextState).toBeNull();
    const session = await db().agentSession.findFirstOrThrow({ where: { experimentId: exp.id } });
    expect(session).toMatchObject({ externalId: "s-1", done: true, idSource: "import", turnCount: 3 });

    const j0 = await db().judgment.findFirstOrThrow({
      where: { turnId: turns[0]!.id },
      include: { votes: { orderBy: { index: "asc" } } },
    });
    expect(j0).toMatchObject({ score: 1, dispatch: "RL", excluded: false, judgeVersion: "openclaw-import" });
    expect(j0.votes.map((v) => [v.value, v.error])).toEqual([
      [1, null],
      [1, null],
      [null, "fail"],
    ]);
    expect(j0.votes[0]!.raw).toContain("\\boxed{1}");
    expect(j0.evalScore).toBe(1);
    const j1 = await db().judgment.findFirstOrThrow({ where: { turnId: turns[1]!.id } });
    expect(j1).toMatchObject({ score: -1, dispatch: "RL", excluded: false });
    expect(j1.evalScore).toBeCloseTo(-1 / 3, 12);

    const again = await importText(exp.id, jsonl([...turnRecords, ...prmRecords]));
    expect(again).toMatchObject({ turns: { created: 0, skipped: 3 }, judgments: { created: 0, skipped: 2 } });
    expect(await db().turn.count({ where: { experimentId: exp.id } })).toBe(3);
  });

  it("attaches a PRM file imported after its turn file, reports bad lines, and counts PRM records without a turn", async () => {
    const exp = await makeExperiment({ method: "combine" });
    await importText(exp.id, jsonl(turnRecords));
    const report = await importText(
      exp.id,
      `${JSON.stringify(opdRecord)}\nnot json\n{"session_id":"s-1","turn":"x","score":1,"votes":[]}\n${JSON.stringify({ ...prmRecords[0], session_id: "nobody" })}\n`,
    );
    expect(report.judgments.created).toBe(1);
    expect(report.orphanPrm).toBe(1);
    expect(report.errorCount).toBe(2);
    expect(report.errors.map((e) => e.line)).toEqual([2, 3]);
    expect(report.errors[1]!.message).toMatch(/turn/);
    const t1 = await db().turn.findFirstOrThrow({ where: { experimentId: exp.id, index: 1 } });
    const j = await db().judgment.findFirstOrThrow({ where: { turnId: t1.id }, include: { votes: true } });
    // No teacher log-probs in OpenClaw's files: the accepted hint cannot train OPD until re-scored; eval absent → score 0.
    expect(j).toMatchObject({
      hint: "Repeat the date the user gave.",
      hintAccepted: true,
      score: 0,
      excluded: true,
      excludeReason: "no_hint_and_zero_eval",
    });
    expect(j.votes).toMatchObject([{ kind: "hint", index: 0, value: 1, hint: "Repeat the date the user gave." }]);
  });

  it("needs the write permission", async () => {
    const exp = await makeExperiment();
    const reader = await makeKey(["read"]);
    const res = await handleApi(
      new Request(`http://local/api/import/openclaw?experimentId=${exp.id}`, {
        method: "POST",
        headers: { authorization: `Bearer ${reader}` },
        body: jsonl(turnRecords),
      }),
    );
    expect(res.status).toBe(403);
  });
});

describe("JSONL export", () => {
  it("writes OpenClaw turn records with their PRM records, and our own fields; filters apply", async () => {
    const exp = await makeExperiment({ method: "grpo" });
    await importText(exp.id, jsonl([...turnRecords, ...prmRecords]));
    const t1 = await db().turn.findFirstOrThrow({ where: { experimentId: exp.id, index: 1 } });
    await db().label.create({ data: { turnId: t1.id, source: "REVIEWER", value: 1, comment: "the judge was wrong" } });
    const lines = await exportLines(exp.id);
    expect(lines.map((l) => [l.session_id, l.turn])).toEqual([
      ["s-1", 0],
      ["s-1", 1],
      ["s-1", 2],
    ]);
    for (const [i, l] of lines.entries()) {
      const r = turnRecords[i]!;
      expect(l.messages).toEqual(r.messages);
      expect(l.response_text).toBe(r.response_text);
      expect(l.next_state).toEqual(r.next_state);
      expect(l.timestamp).toBe(new Date(r.timestamp * 1000).toISOString());
    }
    expect(lines[2]!.tool_calls).toEqual(turnRecords[2]!.tool_calls);
    expect(lines[0]!.prm).toEqual(prmRecords[0]);
    expect(lines[1]!.prm).toEqual(prmRecords[1]);
    expect(lines[2]!.prm).toBeNull();
    expect(lines[1]!.ocrl).toMatchObject({
      turn_type: "main",
      training: { value: 1, source: "reviewer", kind: "RL", reward: 1 },
      labels: [{ source: "reviewer", value: 1 }],
    });
    // The embedded policy's chat template renders the prompt.
    expect(lines[0]!.prompt_text).toBe(
      "<|system|>You are a travel agent.<|end|><|user|>Book a flight to Rome<|end|><|assistant|>",
    );
    const filtered = await exportLines(exp.id, "&score=-1");
    expect(filtered.map((l) => l.turn)).toEqual([1]);
  });

  it("round-trips: importing an export into another experiment and exporting again gives the same records", async () => {
    const src = await makeExperiment({ method: "grpo" });
    await importText(src.id, jsonl([...turnRecords, ...prmRecords]));
    const t0 = await db().turn.findFirstOrThrow({ where: { experimentId: src.id, index: 0 } });
    await db().label.create({ data: { turnId: t0.id, source: "USER", value: -1 } });
    const first = await exportLines(src.id);
    const dst = await makeExperiment({ method: "grpo" });
    const report = await importText(dst.id, first.map((l) => JSON.stringify(l)).join("\n"));
    expect(report).toMatchObject({ turns: { created: 3 }, judgments: { created: 2 }, labels: 1 });
    // An imported label is attributed to the key that imported it.
    const importer = await db().apiKey.findUniqueOrThrow({ where: { prefix: key.split("_").slice(0, 2).join("_") } });
    expect(await db().label.findFirst({ where: { turn: { experimentId: dst.id } } })).toMatchObject({
      apiKeyId: importer.id,
    });
    const second = await exportLines(dst.id);
    const strip = (l: Record<string, unknown> & { ocrl: Record<string, unknown> }) => {
      const {
        turn_id: _id,
        experiment: _e,
        labels,
        ...ocrl
      } = l.ocrl as Record<string, unknown> & { labels: { created_at: string }[] };
      return { ...l, ocrl: { ...ocrl, labels: labels.map(({ created_at: _c, ...rest }) => rest) } };
    };
    expect(second.map(strip)).toEqual(first.map(strip));
  });
});
