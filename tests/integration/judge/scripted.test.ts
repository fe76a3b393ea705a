// The judge job against a fake PRM/teacher server over HTTP with scripted replies: exact stored
// aggregates, votes, hints, teacher log-probs and dispatch, for every failure mode the issue names.
// Judge calls run one at a time here, so the n-th scripted reply of a kind is vote n.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { PROMPT_VERSION } from "../../../server/judge/core/prompts";
import { hintedTeacherMessages } from "../../../server/judge/core/teacher";
import { renderChatML } from "../../../server/judge/core/teacherClients";
import { judgeTurnJob, JudgeUnavailableError } from "../../../server/judge/worker/process";
import { JudgeRuntime } from "../../../server/judge/worker/runtime";
import { fakeLogprob, fakeTokenize, startFakePrmServer, type FakePrmServer } from "../../fakes/prmServer";
import { boxed, judgmentsOf, PrmScript } from "./helpers";
import { deleteExperiments, makeExperiment } from "../../helpers/fixtures";
import { makeTurn, type TurnSpec } from "../../helpers/turns";

let fake: FakePrmServer;
let prm: PrmScript;
let grpo: string;
let combine: string;

// Long enough that a loaded machine never times out a normal call; the timeout tests delay 10x past it.
const TIMEOUT_MS = 2000;
const runtime = () =>
  new JudgeRuntime({
    judgeCalls: { timeoutMs: TIMEOUT_MS, retries: 0 },
    teacherCalls: { timeoutMs: 5000, retries: 0 },
    judgeConcurrency: 1,
  });
const judge = (turnId: string, finalAttempt = false, rt = runtime()) => judgeTurnJob(rt, turnId, { finalAttempt });

const request = [
  { role: "system", content: "You are a concise assistant." },
  { role: "user", content: "How do I list files in a directory?" },
];

async function turn(experimentId: string, tag: string, over: Partial<TurnSpec> = {}): Promise<string> {
  const content = `Use ls -la to list every file. [${tag}]`;
  return makeTurn({
    experimentId,
    request,
    content,
    tokenIds: fakeTokenize(content),
    next: { role: "user", content: "hmm" },
    ...over,
  });
}

async function only(turnId: string) {
  const js = await judgmentsOf(turnId);
  expect(js).toHaveLength(1);
  return js[0];
}

const evalVotes = (j: Awaited<ReturnType<typeof only>>) => j.votes.filter((v) => v.kind === "eval");
const hintVotes = (j: Awaited<ReturnType<typeof only>>) => j.votes.filter((v) => v.kind === "hint");

beforeAll(async () => {
  fake = await startFakePrmServer();
  prm = new PrmScript(fake);
  const backend = { kind: "sglang" as const, baseUrl: fake.url, model: "prm" };
  const policy = { kind: "sglang" as const, baseUrl: fake.url, model: "policy" };
  grpo = (await makeExperiment({ method: "grpo", judge: { backend }, policy })).id;
  combine = (await makeExperiment({ method: "combine", judge: { backend }, policy })).id;
});
afterAll(async () => {
  await deleteExperiments();
  await fake.close();
});

describe("PRM votes (grpo)", () => {
  it("a clear majority wins; every vote is stored with raw text, value, latency, and the judge's identity", async () => {
    const tag = prm.script([boxed(1), boxed(-1), boxed(1)]);
    const id = await turn(grpo, tag);
    const out = await judge(id);
    expect(out.status).toBe("stored");
    const j = await only(id);
    expect(j).toMatchObject({
      score: 1,
      dispatch: "RL",
      excluded: false,
      excludeReason: null,
      hint: null,
      hintAccepted: false,
      judgeKind: "openai",
      model: "prm",
      promptVersion: PROMPT_VERSION,
    });
    expect(j.evalScore).toBeCloseTo(1 / 3, 12);
    expect(j.votes.map((v) => [v.kind, v.index, v.value, v.error])).toEqual([
      ["eval", 0, 1, null],
      ["eval", 1, -1, null],
      ["eval", 2, 1, null],
    ]);
    expect(j.votes[1].raw).toBe("Let me think step by step. \\boxed{-1}");
    expect(j.votes.every((v) => typeof v.latencyMs === "number" && v.latencyMs >= 0)).toBe(true);
    expect(j.settings).toMatchObject({ kind: "openai", m: 3, temperature: 0.6, includeRequest: false, method: "grpo" });
    expect(prm.calls.get(tag)).toBe(3);
    // The judge saw the output and the next state with its role, not the request (off by default).
    const sent = fake.requests.filter((r) => r.path === "/v1/chat/completions" && JSON.stringify(r.body).includes(tag));
    const body = sent[0].body as { model: string; temperature: number; messages: { content: string }[] };
    expect(body).toMatchObject({ model: "prm", temperature: 0.6 });
    expect(body.messages[1].content).toContain("## Next state [role: user]\nhmm");
    expect(body.messages[1].content).not.toContain("How do I list files");
  });

  it("a tie for the top count gives 0, and a 0 score is excluded from training", async () => {
    const id = await turn(grpo, prm.script([boxed(1), boxed(-1), boxed(0)]));
    await judge(id);
    const j = await only(id);
    expect(j).toMatchObject({ score: 0, evalScore: 0, dispatch: "RL", excluded: true, excludeReason: "zero_score" });
  });

  it("garbage answers are dropped, not counted; with no valid vote the score is 0", async () => {
    const id = await turn(grpo, prm.script([{ text: "Looks fine to me." }, boxed(2), boxed(-1)]));
    await judge(id);
    const j = await only(id);
    expect(j).toMatchObject({ score: -1, evalScore: -1, excluded: false });
    expect(j.votes.map((v) => [v.value, v.error])).toEqual([
      [null, "unparsable answer"],
      [null, "unparsable answer"],
      [-1, null],
    ]);
    expect(j.votes[0].raw).toBe("Looks fine to me.");

    // All unparsable is still a verdict (the judge answered), so it is stored at once, not retried.
    const id2 = await turn(grpo, prm.script([{ text: "?" }, { text: "\\boxed{yes}" }, { text: "" }]));
    expect((await judge(id2)).status).toBe("stored");
    expect(await only(id2)).toMatchObject({ score: 0, evalScore: null, excluded: true, excludeReason: "zero_score" });
  });

  it("HTTP errors and non-JSON bodies drop the vote and record the error", async () => {
    const id = await turn(grpo, prm.script([{ status: 500 }, { raw: "<html>bad gateway</html>" }, boxed(-1)]));
    await judge(id);
    const j = await only(id);
    expect(j).toMatchObject({ score: -1, evalScore: -1 });
    expect(j.votes.map((v) => v.value)).toEqual([null, null, -1]);
    expect(j.votes[0]).toMatchObject({ error: "http 500", raw: "" });
    expect(j.votes[1].error).toMatch(/^BadResponseError: non-JSON body/);
  });

  it("a timed-out vote is dropped", async () => {
    const id = await turn(grpo, prm.script([{ ...boxed(1), delayMs: TIMEOUT_MS * 10 }, boxed(-1), boxed(-1)]));
    await judge(id);
    const j = await only(id);
    expect(j).toMatchObject({ score: -1, evalScore: -1 });
    expect(j.votes[0]).toMatchObject({ value: null, error: `timeout after ${TIMEOUT_MS} ms` });
  });

  it("when every call fails the job is retried instead of stored; the next attempt's votes are the ones kept", async () => {
    const tag = prm.script([{ status: 503 }, { status: 503 }, { status: 503 }]);
    const id = await turn(grpo, tag);
    await expect(judge(id)).rejects.toBeInstanceOf(JudgeUnavailableError);
    expect(await judgmentsOf(id)).toHaveLength(0);

    prm.add(tag, [boxed(1), boxed(1), boxed(0)]);
    expect((await judge(id)).status).toBe("stored");
    const j = await only(id);
    expect(j).toMatchObject({ score: 1, excluded: false });
    expect(j.votes.map((v) => [v.value, v.error])).toEqual([
      [1, null],
      [1, null],
      [0, null],
    ]);
  });

  it("after the last attempt an outage is still not stored, while a permanent failure is (score 0, errors kept)", async () => {
    const outage = await turn(
      grpo,
      prm.script([{ status: 503 }, { status: 502 }, { ...boxed(1), delayMs: TIMEOUT_MS * 10 }]),
    );
    await expect(judge(outage, true)).rejects.toThrow("every eval call failed (http 503)");
    expect(await judgmentsOf(outage)).toHaveLength(0);

    const id = await turn(grpo, prm.script([{ status: 404 }, { raw: "<html>not an API</html>" }, { status: 400 }]));
    const out = await judge(id, true);
    expect(out).toMatchObject({ status: "stored", degraded: "every eval call failed (http 404)" });
    const j = await only(id);
    expect(j).toMatchObject({ score: 0, evalScore: null, excluded: true, excludeReason: "zero_score" });
    expect(j.votes.map((v) => v.error)).toEqual([
      "http 404",
      expect.stringMatching(/^BadResponseError: non-JSON body/),
      "http 400",
    ]);
  });
});

describe("OPD hints, teacher log-probs and combine dispatch", () => {
  const longHint = "Use a bulleted list and keep the answer under fifty words.";

  /** The fake teacher's log-probs of `content`'s tokens after the hinted context (independent of the client). */
  function expectedTeacher(content: string, hint: string): number[] {
    const prompt = fakeTokenize(renderChatML(hintedTeacherMessages(request, hint)));
    const ids = [...prompt, ...fakeTokenize(content)];
    return fakeTokenize(content).map((_, j) => fakeLogprob(ids[prompt.length + j - 1], ids[prompt.length + j]));
  }

  it("hint + eval ±1 → one BOTH sample with reward = eval; the longest hint wins; teacher log-probs are exact", async () => {
    const tag = prm.script(
      [boxed(-1), boxed(-1), boxed(1)],
      [boxed(1, "Be more brief."), boxed(1, longHint), boxed(-1)],
    );
    const id = await turn(combine, tag);
    await judge(id);
    const j = await only(id);
    expect(j).toMatchObject({ score: -1, hint: longHint, hintAccepted: true, dispatch: "BOTH", excluded: false });
    expect(j.evalScore).toBeCloseTo(-1 / 3, 12);
    expect(evalVotes(j).map((v) => v.value)).toEqual([-1, -1, 1]);
    expect(hintVotes(j).map((v) => [v.value, v.hint])).toEqual([
      [1, "Be more brief."],
      [1, longHint],
      [-1, null],
    ]);
    const content = `Use ls -la to list every file. [${tag}]`;
    const expected = expectedTeacher(content, longHint);
    expect(j.teacherLogprobs).toHaveLength(expected.length);
    j.teacherLogprobs.forEach((lp, k) => expect(lp).toBeCloseTo(expected[k], 12));
    const generate = fake.requests.filter((r) => r.path === "/generate").at(-1)!.body as {
      input_ids: number[];
      logprob_start_len: number;
      sampling_params: unknown;
    };
    expect(generate.sampling_params).toEqual({ max_new_tokens: 0, temperature: 0 });
    // SGLang's entry at logprob_start_len is null, so the request starts one token before the response.
    expect(generate.input_ids.slice(generate.logprob_start_len + 1)).toEqual(fakeTokenize(content));
  });

  it("the teacher context is the turn's whole request as recorded in compact form (system blob, deltas, tools)", async () => {
    const tag = prm.script([boxed(-1), boxed(-1), boxed(-1)], [boxed(1, longHint), boxed(-1), boxed(-1)]);
    const system = { role: "system", content: "You are a shell expert." };
    // Keys already in jsonb's storage order (shorter keys first): Postgres does not keep key order.
    const tools = [{ type: "function", function: { name: "ls", parameters: { type: "object" } } }];
    const hash = `sys_${tag}`;
    const toolsHash = `tools_${tag}`;
    await db().blob.createMany({
      data: [
        { hash, kind: "system", content: system, bytes: 1 },
        { hash: toolsHash, kind: "tools", content: tools, bytes: 1 },
      ],
    });
    const session = await db().agentSession.create({ data: { experimentId: combine, externalId: `s-${tag}` } });
    const q1 = { role: "user", content: "List files." };
    const a1 = { role: "assistant", content: "ls" };
    const q2 = { role: "user", content: "Now with hidden ones." };
    const base = { experimentId: combine, sessionId: session.id, systemHash: hash, toolsHash };
    await db().turn.create({
      data: {
        ...base,
        requestId: `r0-${tag}`,
        index: 0,
        messagesOffset: 0,
        messagesDelta: [q1],
        content: "ls",
        nextState: q2,
        nextStateRole: "user",
        nextStateAt: new Date(),
      },
    });
    // A side call in between chains in its own lane and must not leak into the main conversation.
    await db().turn.create({
      data: {
        ...base,
        requestId: `rs-${tag}`,
        index: 1,
        turnType: "SIDE",
        messagesOffset: 0,
        messagesDelta: [{ role: "user", content: "summarise" }],
        content: "…",
      },
    });
    const content = `ls -a [${tag}]`;
    const id = (
      await db().turn.create({
        data: {
          ...base,
          requestId: `r1-${tag}`,
          index: 2,
          messagesOffset: 1,
          messagesDelta: [a1, q2],
          content,
          tokenIds: fakeTokenize(content),
          nextState: { role: "user", content: "no, use -la" },
          nextStateRole: "user",
          nextStateAt: new Date(),
        },
      })
    ).id;
    await judge(id);
    expect(await only(id)).toMatchObject({ hint: longHint, dispatch: "BOTH" });
    const tokenize = fake.requests.filter((r) => r.path === "/generate" && "text" in (r.body as object)).at(-1)!
      .body as { text: string };
    expect(tokenize.text).toBe(renderChatML(hintedTeacherMessages([system, q1, a1, q2], longHint), tools));
  });

  it("hint only (eval tie) → an OPD sample with reward 0", async () => {
    const id = await turn(
      combine,
      prm.script([boxed(1), boxed(-1), boxed(0)], [boxed(-1), boxed(1, longHint), { text: "no idea" }]),
    );
    await judge(id);
    expect(await only(id)).toMatchObject({
      score: 0,
      hint: longHint,
      hintAccepted: true,
      dispatch: "OPD",
      excluded: false,
    });
  });

  it("eval only → an RL sample (hints of 10 characters or less are not accepted); neither → excluded, nothing", async () => {
    const rl = await turn(
      combine,
      prm.script([boxed(1), boxed(1), boxed(1)], [boxed(-1), boxed(1, "Be brief."), boxed(1, "0123456789")]),
    );
    await judge(rl);
    expect(await only(rl)).toMatchObject({
      score: 1,
      hint: null,
      hintAccepted: false,
      dispatch: "RL",
      excluded: false,
      teacherLogprobs: [],
    });

    const none = await turn(combine, prm.script([boxed(0), boxed(0), boxed(0)], [boxed(-1), boxed(-1), boxed(-1)]));
    await judge(none);
    expect(await only(none)).toMatchObject({
      score: 0,
      hintAccepted: false,
      dispatch: null,
      excluded: true,
      excludeReason: "no_hint_and_zero_eval",
    });
  });

  it("a failed teacher call is retried, not stored; a permanent failure keeps the hint without an OPD sample", async () => {
    const hints = () => [boxed(1, longHint), boxed(1, longHint), boxed(1, longHint)];
    const tag = prm.script([boxed(-1), boxed(-1), boxed(-1)], hints());
    const id = await turn(combine, tag);
    fake.pushNative("/generate", { status: 500 });
    await expect(judge(id)).rejects.toThrow(/teacher scoring failed \(http 500\)/);
    expect(await judgmentsOf(id)).toHaveLength(0);
    prm.add(tag, [boxed(-1), boxed(-1), boxed(-1)], hints());
    await judge(id);
    expect(await only(id)).toMatchObject({ dispatch: "BOTH", hintAccepted: true });

    // After the last attempt: an unreachable teacher is still retried later; a malformed answer is final.
    const down = await turn(combine, prm.script([boxed(-1), boxed(-1), boxed(-1)], hints()));
    fake.pushNative("/generate", { status: 500 });
    await expect(judge(down, true)).rejects.toThrow(/teacher scoring failed \(http 500\)/);
    const last = await turn(combine, prm.script([boxed(-1), boxed(-1), boxed(-1)], hints()));
    fake.pushNative("/generate", { raw: "{}" });
    await judge(last, true);
    const j = await only(last);
    expect(j).toMatchObject({
      score: -1,
      hint: longHint,
      hintAccepted: true,
      teacherLogprobs: [],
      dispatch: "RL",
      excluded: false,
    });
    expect(j.settings).toMatchObject({
      teacherError: expect.stringMatching(/^BadResponseError: unexpected \/generate shape/),
    });
  });
});

describe("what is judged, and how often", () => {
  it("no next state after the session ended → an excluded judgment, without any judge call", async () => {
    const tag = prm.script([]);
    const id = await turn(combine, tag, { next: null, sessionDone: true });
    await judge(id);
    expect(await only(id)).toMatchObject({
      score: 0,
      excluded: true,
      excludeReason: "no_next_state",
      dispatch: null,
      votes: [],
    });
    expect(prm.calls.get(tag)).toBeUndefined();
  });

  it("side turns, failed turns and turns still waiting for their next state are skipped without calls", async () => {
    const tag = prm.script([]);
    const side = await turn(grpo, tag, { turnType: "SIDE" });
    const failed = await turn(grpo, tag, { status: "FAILED" });
    const waiting = await turn(grpo, tag, { next: null, sessionDone: false });
    expect(await judge(side)).toEqual({ status: "skipped", reason: "side_turn" });
    expect(await judge(failed)).toEqual({ status: "skipped", reason: "failed_turn" });
    expect(await judge(waiting)).toEqual({ status: "skipped", reason: "not_ready" });
    expect(await judge("no-such-turn")).toEqual({ status: "skipped", reason: "missing" });
    expect(await db().judgment.count({ where: { turnId: { in: [side, failed, waiting] } } })).toBe(0);
    expect(prm.calls.get(tag)).toBeUndefined();
  });

  it("a job delivered twice gives one judgment; the second delivery makes no calls", async () => {
    const tag = prm.script([boxed(1), boxed(1), boxed(-1)]);
    const id = await turn(grpo, tag);
    const first = await judge(id);
    const second = await judge(id);
    expect(first.status).toBe("stored");
    expect(second).toMatchObject({
      status: "duplicate",
      judgmentId: first.status === "stored" ? first.judgmentId : "",
    });
    expect(prm.calls.get(tag)).toBe(3);
    expect((await only(id)).votes).toHaveLength(3);
  });

  it("two concurrent deliveries of the same turn store one judgment with one set of votes", async () => {
    const id = await turn(grpo, prm.script([boxed(1), boxed(1), boxed(1), boxed(1), boxed(1), boxed(1)]));
    const outcomes = await Promise.all([judge(id), judge(id)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["duplicate", "stored"]);
    expect((await only(id)).votes).toHaveLength(3);
    expect(await db().judgeVote.count({ where: { judgment: { turnId: id } } })).toBe(3);
  });

  it("includeRequest shows the judge the original request, reassembled from the recorded turns", async () => {
    const withRequest = (
      await makeExperiment({
        method: "grpo",
        judge: { backend: { kind: "sglang", baseUrl: fake.url, model: "prm" }, includeRequest: true },
      })
    ).id;
    const tag = prm.script([boxed(1), boxed(1), boxed(1)]);
    await judge(
      await turn(withRequest, tag, {
        toolCalls: [{ id: "c1", type: "function", function: { name: "ls", arguments: '{"path":"/tmp"}' } }],
        next: { role: "tool", content: "a.txt b.txt" },
      }),
    );
    const sent = fake.requests.find((r) => r.path === "/v1/chat/completions" && JSON.stringify(r.body).includes(tag))!
      .body as { messages: { content: string }[] };
    expect(sent.messages[1].content).toContain("## Original request\nHow do I list files in a directory?");
    expect(sent.messages[1].content).toContain(`[${tag}]\n[tool call] ls({"path":"/tmp"})`);
    expect(sent.messages[1].content).toContain("## Next state [role: tool]\na.txt b.txt");
  });

  it("a custom reward module replaces the PRM (examples/custom-reward.ts)", async () => {
    const custom = (
      await makeExperiment({
        method: "grpo",
        judge: { backend: { kind: "custom", modulePath: "custom-reward.ts" } },
      })
    ).id;
    const tag = prm.script([]);
    const id = await turn(custom, tag, { next: { role: "user", content: "way too long, make it shorter" } });
    await judge(id);
    const j = await only(id);
    expect(j).toMatchObject({
      judgeKind: "custom",
      model: "custom-reward.ts",
      score: -1,
      dispatch: "RL",
      excluded: false,
    });
    expect(evalVotes(j).map((v) => v.value)).toEqual([-1, 0]);
    expect(prm.calls.get(tag)).toBeUndefined();
  });
});
