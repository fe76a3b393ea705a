// The evaluation worker next to a serving proxy: the scheduler queues the served version of an experiment
// whose policy is an OpenAI-compatible upstream (the fake), the consumer generates through the same
// upstream, and while that evaluation's request is held in flight at the upstream, a proxy request for the
// same experiment is answered. The hold is released by the test, not by a timer, so nothing depends on timing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, type Prisma } from "../../../server/platform/db/client";
import { ExperimentConfigSchema } from "../../../server/config/experimentConfig";
import { uploadEvalSet } from "../../../server/evaluation/service";
import { startEvaluationWorker } from "../../../server/evaluation/worker";
import { closeQueues } from "../../../server/platform/bus/queues";
import { defaultReply } from "../../../bench/lib/fakeOpenaiUpstream";
import { getPersona, heldOutQuestionsFor, preferredReply } from "../../../server/simulation/personas";
import { adminPrincipal, harness, type Harness } from "../proxy/setup";
import { isolateRedis } from "../../helpers/isolate";
import { waitFor } from "../../helpers/waitFor";

isolateRedis("eval-worker");

const lastUser = (body: Record<string, unknown>) => JSON.stringify((body.messages as unknown[]).at(-1));
// The item asks one of Leo's held-out questions (persona-v2 grades style and content against it); the held
// reply is the one he prefers, so the evaluation's mean is 1.
const leo = getPersona("leo");
const question = heldOutQuestionsFor(leo)[0]!;
const HELD_REPLY = preferredReply(leo, question);
const isEvalRequest = (body: Record<string, unknown>) =>
  lastUser(body).includes(JSON.stringify(question.text).slice(1, -1));

describe("evaluation worker beside the proxy", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(async () => {
    await h.close();
    await closeQueues();
  });

  it("an evaluation in flight does not hold up a proxy request", async () => {
    const e = await db().experiment.findUniqueOrThrow({ where: { id: h.experiment.id } });
    const config = ExperimentConfigSchema.parse(e.config);
    await db().experiment.update({
      where: { id: e.id },
      data: {
        config: {
          ...config,
          evaluation: { ...config.evaluation, enabled: true, k: 1, maxTokens: 16 },
        } as unknown as Prisma.InputJsonValue,
      },
    });
    const admin = await adminPrincipal();
    await uploadEvalSet(admin, {
      experimentId: e.id,
      name: "held",
      jsonl: `${JSON.stringify({ key: "hold", prompt: question.text, persona: "leo" })}\n`,
      mode: "replace",
    });

    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    h.fake.respond((body) => (isEvalRequest(body) ? { content: HELD_REPLY, waitFor: held } : defaultReply(body)));

    const worker = await startEvaluationWorker({ pollMs: 3_600_000, experimentIds: [e.id] });
    try {
      await waitFor("the evaluation's request at the upstream", () =>
        h.fake.requests.some((r) => isEvalRequest(r.body)),
      );
      const evaluation = () => db().evaluation.findFirstOrThrow({ where: { experimentId: e.id } });
      expect((await evaluation()).status).toBe("RUNNING");

      const served = await h.client.chat.completions.create(
        { model: "x", messages: [{ role: "user", content: "hello while evaluating" }] },
        { headers: { "X-Session-Id": "eval-side-by-side" } },
      );
      expect(served.choices[0]!.message.content).toBe("echo: hello while evaluating");
      expect((await evaluation()).status).toBe("RUNNING"); // still held: the proxy did not wait for it

      release();
      await waitFor("the evaluation to finish", async () => (await evaluation()).status === "DONE");
      const done = await evaluation();
      expect(done).toMatchObject({ policyVersion: 0, items: 1, replies: 1, mean: 1, grader: "persona" });
      const score = await db().evalScore.findFirstOrThrow({ where: { evaluationId: done.id } });
      expect(score.reply).toBe(HELD_REPLY);
      // the fixed sampling settings and seed went to the upstream
      const sent = h.fake.requests.find((r) => isEvalRequest(r.body))!.body;
      expect(sent).toMatchObject({
        temperature: config.evaluation.temperature,
        max_tokens: 16,
        seed: config.evaluation.seed,
        top_p: 1,
      });
    } finally {
      release();
      await worker.close();
    }
  }, 60_000);
});
