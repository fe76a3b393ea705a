// A harness episode end to end: a stand-in agent (a black box: it only reads the variables its harness sets)
// runs in the bubblewrap sandbox on a committed Harbor task, talks to the real recording proxy through the
// episode's bridge, and a scripted stand-in policy (the fake upstream) answers. The episode is exactly the
// session the proxy recorded under the episode's id, the verifier scores the workspace, and the turn budget
// truncates. Stock OpenClaw needs Node ≥ 24 in the sandbox; see docs/harness.md.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { runHarnessEpisode } from "../../../server/environments/episodes/harnessRunner";
import { sandboxProvider } from "../../../server/environments/sandbox/registry";
import { EnvironmentCreateInput } from "../../../server/environments/schemas";
import { createEnvironment } from "../../../server/environments/service";
import { isolateRedis } from "../../helpers/isolate";
import { ADMIN } from "../../helpers/fixtures";
import { waitFor } from "../../helpers/waitFor";
import { harness, type Harness } from "../proxy/setup";
import { examplesTaskSet, HARNESS_LIMITS, RIGHT, scriptedAgentHarness, WRONG } from "../../helpers/environments";

isolateRedis("env-harness");

const availability = await sandboxProvider("local-bwrap").available();
describe.skipIf(!availability.ok)(
  `harness episodes through the proxy${availability.ok ? "" : ` (skipped: ${availability.reason})`}`,
  () => {
    let h: Harness;
    let environmentId: string;
    let taskId: string;
    beforeAll(async () => {
      h = await harness();
      const env = await createEnvironment(
        ADMIN,
        EnvironmentCreateInput.parse({ experiment: h.experiment.id, name: "harness", limits: HARNESS_LIMITS }),
      );
      environmentId = env.id;
      taskId = (await examplesTaskSet(h.experiment.id)).taskId("examples/count-errors");
    });
    afterAll(() => h?.close());

    const agent = () => ({ baseUrl: `${h.proxy.url}/v1`, apiKey: h.key, model: h.fake.model });

    it("is the one session the proxy recorded for the episode, and the verifier's reward is its outcome", async () => {
      h.fake.reset();
      h.fake.enqueue({ content: RIGHT }, { content: "There are 3 errors." });
      const ep = await runHarnessEpisode({ environmentId, taskId, harness: scriptedAgentHarness(5), agent: agent() });
      expect(ep).toMatchObject({
        status: "DONE",
        outcome: 1,
        truncation: null,
        error: null,
        sessionId: `episode-${ep.id}-1`,
      });
      // How long the sandbox took to allocate the lease and to run the verifier (the Environments page's latency).
      expect(Number.isInteger(ep.allocateMs) && ep.allocateMs! >= 0).toBe(true);
      expect(Number.isInteger(ep.evaluateMs) && ep.evaluateMs! >= 0).toBe(true);
      const run = ep.steps[0].observation as { exitCode: number; stdout: string; policyCalls: number };
      expect(run).toMatchObject({ exitCode: 0, policyCalls: 2 });
      expect(run.stdout).toContain("There are 3 errors.");
      // Both calls are main turns of the episode attempt's session (named so the trainer collects them).
      const turns = await waitFor("the episode's turns", async () => {
        const session = await db().agentSession.findUnique({
          where: { experimentId_externalId: { experimentId: h.experiment.id, externalId: ep.sessionId! } },
        });
        if (!session) return null;
        const rows = await db().turn.findMany({ where: { sessionId: session.id }, orderBy: { index: "asc" } });
        return rows.length === 2 ? rows : null;
      });
      expect(turns.map((t) => t.turnType)).toEqual(["MAIN", "MAIN"]);
      // The policy saw the sandbox's output in the agent's second call.
      const second = h.fake.requests[1].body.messages as { content: string }[];
      expect(second.at(-1)?.content).toBe("output:\n");
    });

    it("scores a wrong answer 0", async () => {
      h.fake.reset();
      h.fake.enqueue({ content: WRONG }, { content: "Done." });
      const ep = await runHarnessEpisode({ environmentId, taskId, harness: scriptedAgentHarness(5), agent: agent() });
      expect(ep).toMatchObject({ status: "DONE", outcome: 0 });
    });

    it("stops the agent at its turn budget and marks the episode truncated", async () => {
      h.fake.reset();
      h.fake.enqueue({ content: RIGHT }, { content: "never sent" });
      const ep = await runHarnessEpisode({ environmentId, taskId, harness: scriptedAgentHarness(1), agent: agent() });
      expect(ep).toMatchObject({ status: "DONE", outcome: 1, truncation: "step_budget" });
      const run = ep.steps[0].observation as { stdout: string; policyCalls: number; refusedCalls: number };
      expect(run).toMatchObject({ policyCalls: 1, refusedCalls: 1 });
      expect(run.stdout).toContain("policy refused: 429");
      expect(h.fake.requests).toHaveLength(1);
    });
  },
);
