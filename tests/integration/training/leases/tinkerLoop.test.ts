// The Tinker loop closes through the proxy: the bridge's sampling endpoint (integrations/tinker/serve.py on the
// fake Tinker SDK, started by the bridge's own start_serving) reports itself through the trainer API as the
// run's rolloutUrl, and the proxy then serves the experiment's traffic from it: the base model first, the
// trained step's sampler once the loop swaps it in, each turn recorded with the sampled token ids and their
// behaviour log-probs (what the next lease trains on).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeTinkerEndpoint, type FakeTinkerEndpoint } from "../../../helpers/tinkerEndpoint";
import { db } from "../../../../server/platform/db/client";
import { startApiServer } from "../../../helpers/apiServer";
import { makeKey, makeRun, uniq } from "../../../helpers/fixtures";
import { waitFor } from "../../../helpers/waitFor";
import { harness, type Harness } from "../../proxy/setup";

const BASE = "Qwen/Qwen3-4B-Instruct-2507";
const STEP_1 = "tinker://run-abc/sampler_weights/run-1-step-000001";
/** The fake sampler's tokens for `answer from <weights>` (char-level ids, then EOS = 3) and their log-probs. */
const tokensOf = (weights: string) => [...`answer from ${weights}`].map((c) => c.codePointAt(0)!).concat(3);
const lp = (t: number) => -((t % 7) + 1) / 10;

let api: Awaited<ReturnType<typeof startApiServer>>;
let h: Harness;
let bridge: FakeTinkerEndpoint | undefined;

beforeAll(async () => {
  api = await startApiServer();
  h = await harness();
});
afterAll(async () => {
  bridge?.stop();
  await h.close();
  api.close();
});

describe("Tinker served through the proxy", () => {
  it("the bridge reports its endpoint, and the proxy serves the base model, then the trained step, recording tokens and log-probs", async () => {
    const run = await makeRun(h.experiment.id, { status: "RUNNING", trainerBackend: "tinker" });
    bridge = await startFakeTinkerEndpoint({
      CONTROL_PLANE_URL: api.url,
      RUN_ID: run.id,
      CONTROL_PLANE_API_KEY: await makeKey(["write"], h.experiment.id),
      TINKER_BASE_MODEL: BASE,
    });
    const url = bridge.url;
    expect((await db().run.findUniqueOrThrow({ where: { id: run.id } })).rolloutUrl).toBe(url);

    const session = uniq("tinker");
    const ask = (content: string) =>
      h.client.chat.completions.create(
        { model: "x", messages: [{ role: "user", content }] },
        { headers: { "X-Session-Id": session, "X-Turn-Type": "main" } },
      );
    expect((await ask("first")).choices[0]!.message.content).toBe(`answer from ${BASE}`);
    await bridge.step(1, STEP_1);
    expect((await ask("second")).choices[0]!.message.content).toBe(`answer from ${STEP_1}`);
    // Nothing reached the experiment's configured upstream.
    expect(h.fake.requests).toHaveLength(0);

    const turns = await waitFor("both turns recorded", async () => {
      const ts = await db().turn.findMany({
        where: { experimentId: h.experiment.id, runId: run.id },
        orderBy: { createdAt: "asc" },
        select: { content: true, tokenIds: true, logprobs: true },
      });
      return ts.length === 2 ? ts : null;
    });
    expect(turns.map((t) => t.content)).toEqual([`answer from ${BASE}`, `answer from ${STEP_1}`]);
    expect(turns.map((t) => t.tokenIds)).toEqual([tokensOf(BASE), tokensOf(STEP_1)]);
    turns.forEach((t, i) =>
      t.logprobs.forEach((v, k) => expect(v).toBeCloseTo(lp([tokensOf(BASE), tokensOf(STEP_1)][i]![k]!), 6)),
    );
  });
});
