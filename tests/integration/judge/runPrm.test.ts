// The judge scores at a live run's PRM routers: the job reports prmUrl through the trainer's report API
// (as integrations/slime/rollout.py does), and the judge job then sends that experiment's votes and teacher
// log-probs there (tests/fakes/prmServer.ts: OpenAI chat + SGLang /generate as SGLang answers them, behind
// the stand-in of slime's sgl-router built from its extracted route table: no /tokenize), recording which endpoints it used; the configured endpoints take over when the run ends or the egress
// policy refuses the run's router.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hintedTeacherMessages } from "../../../server/judge/core/teacher";
import { renderChatML } from "../../../server/judge/core/teacherClients";
import { RunPrmLookup } from "../../../server/judge/worker/endpoints";
import { judgeTurnJob } from "../../../server/judge/worker/process";
import { JudgeRuntime } from "../../../server/judge/worker/runtime";
import { db } from "../../../server/platform/db/client";
import { assertEgressAllowed } from "../../../server/platform/egress";
import { fakeLogprob, fakeTokenize, startFakePrmServer, type FakePrmServer } from "../../fakes/prmServer";
import { startApiServer } from "../../helpers/apiServer";
import { api, deleteExperiments, makeExperiment, makeKey, makeRun } from "../../helpers/fixtures";
import { makeTurn } from "../../helpers/turns";
import { boxed, judgmentsOf, PrmScript } from "./helpers";

let server: Awaited<ReturnType<typeof startApiServer>>;
let configured: FakePrmServer;
let runPrm: FakePrmServer;
let configuredScript: PrmScript;
let runScript: PrmScript;

const request = [
  { role: "system", content: "You are a concise assistant." },
  { role: "user", content: "How do I list files in a directory?" },
];
const longHint = "Use a bulleted list and keep the answer under fifty words.";
const runtime = (opts: { prmLookup?: RunPrmLookup } = {}) =>
  new JudgeRuntime({
    judgeCalls: { timeoutMs: 5000, retries: 0 },
    teacherCalls: { timeoutMs: 5000, retries: 0 },
    judgeConcurrency: 1,
    ...opts,
  });

beforeAll(async () => {
  server = await startApiServer();
  [configured, runPrm] = await Promise.all([startFakePrmServer(), startFakePrmServer({ router: true })]);
  configuredScript = new PrmScript(configured);
  runScript = new PrmScript(runPrm);
  // Every call that reaches a server gets a vote, so a test can tell which server each call went to.
  configuredScript.fallback = () => boxed(1, longHint);
  runScript.fallback = () => boxed(1, longHint);
});
afterAll(async () => {
  server.close();
  await deleteExperiments();
  await Promise.all([configured.close(), runPrm.close()]);
});

/** A combine experiment whose configured judge (with its own key) and policy are the `configured` fake. */
async function experiment(judgeKind: "sglang" | "openai" = "sglang") {
  return makeExperiment({
    method: "combine",
    judge: { backend: { kind: judgeKind, baseUrl: configured.url, model: "prm", apiKey: "configured-judge-key" } },
    policy: { kind: "sglang", baseUrl: configured.url, model: "policy" },
  });
}

async function turn(experimentId: string, tag: string): Promise<{ id: string; content: string }> {
  const content = `Use ls -la to list every file. [${tag}]`;
  const id = await makeTurn({
    experimentId,
    request,
    content,
    tokenIds: fakeTokenize(content),
    next: { role: "user", content: "hmm" },
  });
  return { id, content };
}

function expectedTeacher(content: string): number[] {
  const prompt = fakeTokenize(renderChatML(hintedTeacherMessages(request, longHint)));
  const ids = [...prompt, ...fakeTokenize(content)];
  return fakeTokenize(content).map((_, j) => fakeLogprob(ids[prompt.length + j - 1]!, ids[prompt.length + j]!));
}

/** The judge calls a server got for a tagged turn (the tag is in the assistant output they show). */
const callsFor = (fake: FakePrmServer, tag: string) =>
  fake.requests.filter((r) => JSON.stringify(r.body).includes(tag));
const hits = (fake: FakePrmServer, path: string, since: number) =>
  fake.requests.slice(since).filter((r) => r.path === path);

describe("judging at the live run's PRM router", () => {
  it("a run that reported prmUrl gets its experiment's votes and teacher log-probs there, recorded on the judgment", async () => {
    const e = await experiment();
    const run = await makeRun(e.id, { status: "RUNNING" });
    const trainer = api(server.url, { bearer: await makeKey(["write"], e.id) });
    const report = await trainer("POST", `/api/v1/runs/${run.id}/report`, {
      prmUrl: runPrm.url,
      prmModelPath: "/models/Qwen3-4B",
    });
    expect(report.status).toBe(200);
    expect(await db().run.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
      prmUrl: runPrm.url,
      prmTeacherUrl: null,
      prmModelPath: "/models/Qwen3-4B",
    });

    const tag = runScript.script(
      [boxed(-1), boxed(-1), boxed(1)],
      [boxed(1, "Be more brief."), boxed(1, longHint), boxed(-1)],
    );
    const { id, content } = await turn(e.id, tag);
    const before = { configured: configured.requests.length, run: runPrm.requests.length };
    expect((await judgeTurnJob(runtime(), id, { finalAttempt: false })).status).toBe("stored");

    const [j] = await judgmentsOf(id);
    expect(j).toMatchObject({
      score: -1,
      hint: longHint,
      hintAccepted: true,
      dispatch: "BOTH",
      judgeKind: "openai",
      model: "prm",
    });
    expect(j!.settings).toMatchObject({
      endpoints: {
        source: "run",
        runId: run.id,
        judge: runPrm.url,
        teacher: runPrm.url,
        prmModelPath: "/models/Qwen3-4B",
      },
    });
    const expected = expectedTeacher(content);
    expect(j!.teacherLogprobs).toHaveLength(expected.length);
    j!.teacherLogprobs.forEach((lp, k) => expect(lp).toBeCloseTo(expected[k]!, 12));
    // Six votes and the teacher's two /generate calls (tokenize, score) went to the run's router, nothing to the configured one,
    // and the configured judge's key did not travel with them.
    expect(runScript.calls.get(tag)).toBe(6);
    expect(hits(runPrm, "/generate", before.run)).toHaveLength(2);
    expect(configured.requests.length).toBe(before.configured);
    expect(runPrm.requests.slice(before.run).every((r) => r.headers.authorization === undefined)).toBe(true);
    expect(callsFor(configured, tag)).toHaveLength(0);
  });

  it("a separate PRM teacher's router scores the teacher log-probs, the PRM router the votes", async () => {
    const teacher = await startFakePrmServer({ router: true });
    try {
      const e = await experiment();
      const run = await makeRun(e.id, { status: "RUNNING" });
      const trainer = api(server.url, { bearer: await makeKey(["write"], e.id) });
      expect(
        (await trainer("POST", `/api/v1/runs/${run.id}/report`, { prmUrl: runPrm.url, prmTeacherUrl: teacher.url }))
          .status,
      ).toBe(200);
      const tag = runScript.script(
        [boxed(1), boxed(1), boxed(1)],
        [boxed(1, longHint), boxed(1, longHint), boxed(1, longHint)],
      );
      const { id } = await turn(e.id, tag);
      await judgeTurnJob(runtime(), id, { finalAttempt: false });
      const [j] = await judgmentsOf(id);
      expect(j!.settings).toMatchObject({ endpoints: { source: "run", judge: runPrm.url, teacher: teacher.url } });
      expect(runScript.calls.get(tag)).toBe(6);
      expect(teacher.requests.map((r) => r.path)).toEqual(["/generate", "/generate"]);
    } finally {
      await teacher.close();
    }
  });

  it("an OpenAI-API judge keeps voting as configured; only the teacher log-probs move to the run's PRM", async () => {
    const e = await experiment("openai");
    const run = await makeRun(e.id, { status: "RUNNING" });
    await db().run.update({ where: { id: run.id }, data: { prmUrl: runPrm.url } });
    const tag = configuredScript.script(
      [boxed(1), boxed(1), boxed(1)],
      [boxed(1, longHint), boxed(1, longHint), boxed(1, longHint)],
    );
    const before = runPrm.requests.length;
    const { id, content } = await turn(e.id, tag);
    await judgeTurnJob(runtime(), id, { finalAttempt: false });
    const [j] = await judgmentsOf(id);
    expect(j!.settings).toMatchObject({
      endpoints: { source: "run", runId: run.id, judge: configured.url, teacher: runPrm.url },
    });
    expect(configuredScript.calls.get(tag)).toBe(6);
    expect(runPrm.requests.slice(before).map((r) => r.path)).toEqual(["/generate", "/generate"]);
    j!.teacherLogprobs.forEach((lp, k) => expect(lp).toBeCloseTo(expectedTeacher(content)[k]!, 12));
  });

  it("falls back to the experiment's endpoints when the run has ended, and when egress refuses the run's router", async () => {
    const e = await experiment();
    const run = await makeRun(e.id, { status: "RUNNING" });
    await db().run.update({ where: { id: run.id }, data: { prmUrl: runPrm.url } });

    // Refused at call time (a strict policy: no private addresses): the configured judge is used and says why.
    const strict = new RunPrmLookup((url) => assertEgressAllowed(url, { allowPrivate: false, allowlist: [] }));
    const refusedTag = configuredScript.script(
      [boxed(1), boxed(1), boxed(1)],
      [boxed(1, longHint), boxed(1, longHint), boxed(1, longHint)],
    );
    const refused = await turn(e.id, refusedTag);
    await judgeTurnJob(runtime({ prmLookup: strict }), refused.id, { finalAttempt: false });
    const [rj] = await judgmentsOf(refused.id);
    expect(rj!.settings).toMatchObject({
      endpoints: {
        source: "experiment",
        judge: configured.url,
        teacher: configured.url,
        refused: expect.stringContaining(runPrm.url),
      },
    });
    expect(configuredScript.calls.get(refusedTag)).toBe(6);
    expect(callsFor(runPrm, refusedTag)).toHaveLength(0);

    // The run ends: the same runtime (its judge cached for the run's router) moves back to the configured judge.
    const rt = runtime();
    const liveTag = runScript.script(
      [boxed(1), boxed(1), boxed(1)],
      [boxed(1, longHint), boxed(1, longHint), boxed(1, longHint)],
    );
    await judgeTurnJob(rt, (await turn(e.id, liveTag)).id, { finalAttempt: false });
    expect(runScript.calls.get(liveTag)).toBe(6);
    await db().run.update({ where: { id: run.id }, data: { status: "FINISHED", endedAt: new Date() } });
    const endedTag = configuredScript.script(
      [boxed(1), boxed(1), boxed(1)],
      [boxed(1, longHint), boxed(1, longHint), boxed(1, longHint)],
    );
    const ended = await turn(e.id, endedTag);
    await judgeTurnJob(rt, ended.id, { finalAttempt: false });
    const [ej] = await judgmentsOf(ended.id);
    expect(ej!.settings).toMatchObject({
      endpoints: { source: "experiment", judge: configured.url, teacher: configured.url },
    });
    expect(ej!.settings).not.toHaveProperty("endpoints.runId");
    expect(configuredScript.calls.get(endedTag)).toBe(6);
    expect(callsFor(runPrm, endedTag)).toHaveLength(0);
    // The configured judge gets its key.
    expect(
      configured.requests
        .filter((r) => JSON.stringify(r.body).includes(endedTag))
        .every((r) => r.headers.authorization === "Bearer configured-judge-key"),
    ).toBe(true);
  });

  it("refuses a report naming a PRM router the egress policy forbids, and stores nothing from it", async () => {
    const e = await experiment();
    const run = await makeRun(e.id, { status: "RUNNING" });
    const trainer = api(server.url, { bearer: await makeKey(["write"], e.id) });
    const res = await trainer("POST", `/api/v1/runs/${run.id}/report`, {
      rolloutUrl: "http://127.0.0.1:30000/v1",
      prmUrl: "http://169.254.169.254/latest",
    });
    expect(res.status).toBe(400);
    expect(res.body.error?.issues[0]?.path).toBe("prmUrl");
    expect(await db().run.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
      prmUrl: null,
      rolloutUrl: null,
      heartbeatAt: null,
    });
    const bad = await trainer("POST", `/api/v1/runs/${run.id}/report`, { prmTeacherUrl: "not a url" });
    expect(bad.status).toBe(400);
  });
});
