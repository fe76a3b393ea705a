// Eval sets and agreement over the real REST API: JSONL upload → download round trip (a new version per
// change, older versions still readable), 400s naming the bad line that write nothing, "add to eval set"
// from recorded turns, the persona set, and judge–human agreement with hand-computed κ.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { api, makeKey } from "../../helpers/fixtures";
import { startApiServer } from "../../helpers/apiServer";
import { HELD_OUT_QUESTION_IDS } from "../../../server/simulation/personas";
import { expectedJudgeVersion } from "../../../server/judge/worker/settings";
import { judgedTurn } from "./helpers";
import { isolateRedis } from "../../helpers/isolate";
import { makeExperiment } from "../../helpers/fixtures";

isolateRedis("eval-api");

describe("evaluation REST API", () => {
  let server: Awaited<ReturnType<typeof startApiServer>>;
  let call: ReturnType<typeof api>;
  beforeAll(async () => {
    server = await startApiServer();
    call = api(server.url, { bearer: await makeKey(["read", "write"]) });
  });
  afterAll(() => server.close());

  it("round-trips JSONL, versions every change, and rejects bad lines naming them without writing", async () => {
    const e = await makeExperiment({ method: "grpo" });
    const jsonl =
      [
        JSON.stringify({
          key: "greet",
          messages: [
            { role: "system", content: "Be kind." },
            { role: "user", content: "Hi!" },
          ],
          rubric: "Greets back warmly.",
          reference: "Hello!",
        }),
        JSON.stringify({ key: "egg", prompt: "How do I boil an egg?", persona: "leo" }),
      ].join("\n") + "\n";
    const up = await call("POST", "/api/v1/eval-sets/upload", { experimentId: e.id, name: "smoke", jsonl });
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ version: 1, items: 2 });

    const bad = await call("POST", "/api/v1/eval-sets/upload", {
      experimentId: e.id,
      name: "smoke",
      jsonl: `${JSON.stringify({ prompt: "ok" })}\n{"messages": []}\n`,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error!.message).toMatch(/^Invalid eval set: line 2: messages: messages must not be empty/);
    expect(bad.body.error!.issues).toEqual([{ path: "line 2: messages", message: "messages must not be empty" }]);
    expect((await db().evalSet.findFirstOrThrow({ where: { experimentId: e.id } })).latestVersion).toBe(1);

    const list = await call("GET", `/api/v1/eval-sets?experimentId=${e.id}`);
    const setId = (list.body as unknown as { id: string }[])[0]!.id;
    const down = await call("GET", `/api/v1/eval-sets/${setId}/jsonl`);
    expect(down.status).toBe(200);
    const lines = (down.body.jsonl as string)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      {
        key: "greet",
        messages: [
          { role: "system", content: "Be kind." },
          { role: "user", content: "Hi!" },
        ],
        reference: "Hello!",
        rubric: "Greets back warmly.",
      },
      { key: "egg", messages: [{ role: "user", content: "How do I boil an egg?" }], persona: "leo" },
    ]);
    // The download uploads again unchanged, as version 2; version 1 stays readable.
    const again = await call("POST", "/api/v1/eval-sets/upload", {
      experimentId: e.id,
      name: "smoke",
      jsonl: down.body.jsonl,
    });
    expect(again.body).toMatchObject({ version: 2, items: 2 });
    expect((await call("GET", `/api/v1/eval-sets/${setId}/jsonl?version=2`)).body.jsonl).toBe(down.body.jsonl);
    expect((await call("GET", `/api/v1/eval-sets/${setId}?version=1`)).body).toMatchObject({
      version: 1,
      items: [{ key: "greet" }, { key: "egg" }],
    });

    // "add to eval set" from a recorded turn appends its request (and, if asked, its reply as the reference).
    const turnId = await judgedTurn(e.id, 0, 1);
    const added = await call("POST", "/api/v1/eval-sets/add-turns", {
      experimentId: e.id,
      name: "smoke",
      turnIds: [turnId],
      useReplyAsReference: true,
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ version: 3, items: 3 });
    const v3 = await call("GET", `/api/v1/eval-sets/${setId}`);
    expect((v3.body.items as unknown[])[2]).toMatchObject({
      key: `turn/${turnId}`,
      messages: [{ role: "user", content: "q" }],
      reference: "a",
      sourceTurnId: turnId,
    });
    const twice = await call("POST", "/api/v1/eval-sets/add-turns", {
      experimentId: e.id,
      name: "smoke",
      turnIds: [turnId],
    });
    expect(twice.status).toBe(400);
    expect(twice.body.error!.message).toMatch(/already in "smoke" v3/);
  });

  it("builds the persona set from held-out questions only", async () => {
    const e = await makeExperiment({ method: "grpo" });
    const r = await call("POST", "/api/v1/eval-sets/persona", { experimentId: e.id, personas: ["leo", "maya"] });
    expect(r.status).toBe(201);
    const items = await db().evalItem.findMany({ where: { setVersionId: r.body.setVersionId as string } });
    expect(items.length).toBe(r.body.items);
    for (const it of items) expect(HELD_OUT_QUESTION_IDS.has(it.key.split("/")[1]!), it.key).toBe(true);
    expect(new Set(items.map((i) => i.persona))).toEqual(new Set(["leo", "maya"]));
  });

  it("reports judge–human agreement per judge version with the confusion matrix and the disagreements", async () => {
    const e = await makeExperiment({
      method: "grpo",
      evaluation: { agreement: { kappaThreshold: 0.6, minLabeled: 10 } },
    });
    // Hand-computed (as in the unit test): 7 agree +1, 3 human +1 / judge −1, 3 human −1 / judge +1, 7 agree −1 → κ 0.4.
    const spec: [number, number, number][] = [
      [1, 1, 7],
      [1, -1, 3],
      [-1, 1, 3],
      [-1, -1, 7],
    ];
    const jv = expectedJudgeVersion(e.config); // the experiment's current judge
    for (const [human, judge, n] of spec)
      for (let i = 0; i < n; i++)
        await judgedTurn(e.id, 0, judge, { source: i % 2 ? "REVIEWER" : "USER", value: human }, jv);
    // A reviewer overrides the user's feedback on the same turn: the reviewer's label counts.
    const t = await judgedTurn(e.id, 0, 1, { source: "USER", value: -1 }, jv);
    await db().label.create({ data: { turnId: t, source: "REVIEWER", value: 1 } });
    // An unlabelled turn does not count.
    await judgedTurn(e.id, 0, -1, undefined, jv);
    // An older judge version is reported on its own.
    await judgedTurn(e.id, 0, 1, { source: "USER", value: 1 }, "jv-old");

    const r = await call("GET", `/api/v1/evaluations/agreement?experimentId=${e.id}`);
    expect(r.status).toBe(200);
    const judges = r.body.judges as {
      judgeVersion: string;
      n: number;
      accuracy: number;
      kappa: number;
      confusion: number[][];
      disagreements: unknown[];
    }[];
    expect(judges.map((x) => x.judgeVersion).sort()).toEqual([jv, "jv-old"].sort());
    expect(judges.find((x) => x.judgeVersion === "jv-old")).toMatchObject({ n: 1, accuracy: 1 });
    const j = judges.find((x) => x.judgeVersion === jv)!;
    // 21 pairs: po = 15/21; rows (human −1, 0, +1) = 10, 0, 11; columns (judge) = 10, 0, 11 → pe = (100 + 121)/441.
    const po = 15 / 21;
    const pe = (100 + 121) / 441;
    expect(j.n).toBe(21);
    expect(j.accuracy).toBeCloseTo(po, 12);
    expect(j.kappa).toBeCloseTo((po - pe) / (1 - pe), 12);
    expect(j.confusion).toEqual([
      [7, 0, 3],
      [0, 0, 0],
      [3, 0, 8],
    ]);
    expect(j.disagreements).toHaveLength(6);
    // κ ≈ 0.43 < 0.6 over 21 ≥ 10 labelled turns of the current judge: the experiment carries a warning
    expect(r.body.warning).toMatch(/Cohen's κ = 0\.43 \(< 0\.6\) over 21 labelled turns/);
  });
});
