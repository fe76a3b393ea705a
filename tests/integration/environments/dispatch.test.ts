// The episode worker runs each environment's episodes with the runner its settings call for: an environment
// with provider remote-pool (terminal or gui protocol) on its pools, one with a harness through the stock-agent
// runner in bubblewrap. Real Postgres, Redis (BullMQ), the real recording proxy, the pool stand-ins built from
// the extracted protocol fixtures, and a scripted stand-in policy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { startEpisodeWorker } from "../../../server/environments/episodes/worker";
import { sandboxProvider } from "../../../server/environments/sandbox/registry";
import { EnvironmentCreateInput, EpisodeLaunchInput } from "../../../server/environments/schemas";
import { createEnvironment, launchEpisodes, writeTaskSetVersion } from "../../../server/environments/service";
import { parseTasks } from "../../../server/environments/tasks/import";
import { EnvPoolServer } from "../../fakes/envPoolServer";
import { ADMIN } from "../../helpers/fixtures";
import { isolateRedis } from "../../helpers/isolate";
import { waitFor } from "../../helpers/waitFor";
import { harness, type Harness } from "../proxy/setup";
import { examplesTaskSet, HARNESS_LIMITS, RIGHT, scriptedAgentHarness, shellCall } from "../../helpers/environments";

isolateRedis("env-dispatch");

const bwrap = await sandboxProvider("local-bwrap").available();

describe("the episode worker dispatches by environment", () => {
  let h: Harness;
  let taskSetId: string;
  let worker: ReturnType<typeof startEpisodeWorker>;
  const pools: EnvPoolServer[] = [];
  beforeAll(async () => {
    h = await harness();
    taskSetId = (await examplesTaskSet(h.experiment.id)).taskSetId;
    worker = startEpisodeWorker({
      agentFor: async () => ({ baseUrl: `${h.proxy.url}/v1`, apiKey: h.key, model: h.fake.model }),
      // One at a time, so the fake upstream's scripted replies go to the episodes in order.
      concurrency: 1,
      perEnvironment: 1,
      staleMs: 3_600_000,
      maxAttempts: 2,
      sweepMs: 3_600_000,
      experimentIds: [h.experiment.id],
    });
  });
  afterAll(async () => {
    await worker?.close();
    for (const s of pools) await s.kill();
    await h?.close();
  });

  async function launchOne(environmentId: string, key: string) {
    const launch = await launchEpisodes(
      ADMIN,
      EpisodeLaunchInput.parse({ environmentId, taskSetId, taskKeys: [key], n: 1, maxSteps: 4 }),
    );
    return waitFor("the episode's end", async () => {
      const ep = await db().episode.findFirst({
        where: { groupKey: `${launch.launchId}:${key}`, status: { in: ["DONE", "FAILED"] } },
        include: { steps: { orderBy: { index: "asc" } }, screenshots: { orderBy: { index: "asc" } } },
      });
      return ep;
    });
  }

  it("runs a terminal remote-pool environment's episode on its pool", async () => {
    const s = await new EnvPoolServer({ protocol: "terminal" }).start();
    pools.push(s);
    const env = await createEnvironment(
      ADMIN,
      EnvironmentCreateInput.parse({
        experiment: h.experiment.id,
        name: "terminal-pool",
        provider: "remote-pool",
        pool: { protocol: "terminal", urls: [s.url] },
      }),
    );
    h.fake.reset();
    h.fake.enqueue(shellCall("make solved"), { content: "Solved." });
    const ep = await launchOne(env.id, "examples/count-errors");
    expect(ep).toMatchObject({ status: "DONE", outcome: 1, leaseProvider: "remote-pool", attempts: 1 });
    expect(ep.sessionId).toBe(`episode-${ep.id}-1`);
    expect(ep.steps).toHaveLength(1);
    expect(s.requests.map((r) => r.path)).toEqual(expect.arrayContaining(["/allocate", "/exec_tool", "/evaluate"]));
    // The episode's row says DONE before its runner's `finally` returns the lease: wait for the release.
    await waitFor("the pool's leases released", () => s.liveLeases().length === 0);
    expect(s.violations).toEqual([]);
  });

  it("runs a gui remote-pool environment's episode and keeps its screenshots", async () => {
    const s = await new EnvPoolServer({ protocol: "gui", score: (c) => (c.includes('"DONE"') ? 1 : 0) }).start();
    pools.push(s);
    const env = await createEnvironment(
      ADMIN,
      EnvironmentCreateInput.parse({
        experiment: h.experiment.id,
        name: "gui-pool",
        provider: "remote-pool",
        pool: { protocol: "gui", urls: [s.url] },
      }),
    );
    h.fake.reset();
    h.fake.enqueue({ content: "pyautogui.click(10, 10)" }, { content: "DONE" });
    const ep = await launchOne(env.id, "examples/sort-names");
    expect(ep).toMatchObject({ status: "DONE", outcome: 1, leaseProvider: "remote-pool" });
    expect(ep.steps.map((st) => st.action)).toEqual([{ action: "pyautogui.click(10, 10)" }, { action: "DONE" }]);
    expect(ep.screenshots.map((sh) => sh.index)).toEqual([0, 1, 2]);
    expect(s.violations).toEqual([]);
  });

  it("runs a swe remote-pool environment's episode: bash in the instance's container, scored by its diff", async () => {
    const s = await new EnvPoolServer({ protocol: "swe" }).start();
    pools.push(s);
    const env = await createEnvironment(
      ADMIN,
      EnvironmentCreateInput.parse({
        experiment: h.experiment.id,
        name: "swe-pool",
        provider: "remote-pool",
        pool: { protocol: "swe", urls: [s.url] },
      }),
    );
    // A repository task as the fork's dataset has it: the instance's image and eval script.
    const [example] = parseTasks({ format: "harbor", folder: "examples/environments/terminal" });
    const task = {
      ...example,
      key: "astropy__astropy-12907",
      metadata: {
        ...example.metadata,
        image: "swebench/sweb.eval.x86_64.astropy_1776_astropy-12907",
        eval_script: "pytest -x",
      },
    };
    const set = await db().$transaction((tx) =>
      writeTaskSetVersion(tx, ADMIN, {
        experimentId: h.experiment.id,
        name: "swe",
        format: "harbor",
        splitSeed: 0,
        heldOutFraction: 0,
        tasks: [task],
      }),
    );
    h.fake.reset();
    h.fake.enqueue(
      { toolCalls: [{ name: "bash", arguments: JSON.stringify({ command: "make solved" }) }] },
      { content: "Fixed." },
    );
    const launch = await launchEpisodes(
      ADMIN,
      EpisodeLaunchInput.parse({ environmentId: env.id, taskSetId: set.id, n: 1, maxSteps: 4 }),
    );
    const ep = await waitFor("the swe episode's end", () =>
      db().episode.findFirst({
        where: { groupKey: `${launch.launchId}:${task.key}`, status: { in: ["DONE", "FAILED"] } },
        include: { steps: { orderBy: { index: "asc" } } },
      }),
    );
    expect(ep).toMatchObject({ status: "DONE", outcome: 1, leaseProvider: "remote-pool", truncation: null });
    expect(ep.outcomeDetail).toMatchObject({ resolved: true });
    expect(s.requests.find((r) => r.path === "/allocate")!.body).toMatchObject({
      image: "swebench/sweb.eval.x86_64.astropy_1776_astropy-12907",
      instance_id: task.key,
    });
    expect(s.requests.find((r) => r.path === "/exec")!.body).toMatchObject({ command: "make solved" });
    expect(s.requests.find((r) => r.path === "/evaluate")!.body).toMatchObject({ eval_script: "pytest -x" });
    // The episode's row says DONE before its runner's `finally` returns the lease: wait for the release.
    await waitFor("the pool's leases released", () => s.liveLeases().length === 0);
    expect(s.violations).toEqual([]);
  });

  it.skipIf(!bwrap.ok)("runs a harness environment's episode with the stock-agent runner", async () => {
    const env = await createEnvironment(
      ADMIN,
      EnvironmentCreateInput.parse({
        experiment: h.experiment.id,
        name: "harness",
        limits: HARNESS_LIMITS,
        harness: { kind: "custom", definition: scriptedAgentHarness(5) },
      }),
    );
    h.fake.reset();
    h.fake.enqueue({ content: RIGHT }, { content: "There are 3 errors." });
    const ep = await launchOne(env.id, "examples/count-errors");
    expect(ep).toMatchObject({ status: "DONE", outcome: 1, leaseProvider: "local-bwrap", truncation: null });
    expect(ep.steps).toHaveLength(1);
    expect(ep.steps[0].action).toMatchObject({ harness: "scripted" });
    expect(ep.steps[0].observation).toMatchObject({ exitCode: 0, policyCalls: 2 });
    // The agent's calls are main turns of the episode attempt's session, as for our own loop.
    const session = await waitFor("the episode's session", () =>
      db().agentSession.findUnique({
        where: { experimentId_externalId: { experimentId: h.experiment.id, externalId: ep.sessionId! } },
      }),
    );
    expect(await db().turn.count({ where: { sessionId: session.id } })).toBe(2);
  });
});
