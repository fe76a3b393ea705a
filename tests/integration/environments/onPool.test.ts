// The remote-pool skeleton every pool runner shares (server/environments/episodes/onPool.ts), against the stand-in
// of terminal-rl's pool_server built from the extracted protocol fixture: whatever a runner's task or loop does,
// the lease is closed, and an episode that did not reach evaluate fails with no outcome (the pool never scored it).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { runOnPool, type PoolRunner } from "../../../server/environments/episodes/onPool";
import { startEpisode } from "../../../server/environments/episodes/runner";
import { RemotePoolProvider } from "../../../server/environments/sandbox/remote/provider";
import { EnvironmentCreateInput } from "../../../server/environments/schemas";
import { createEnvironment } from "../../../server/environments/service";
import { EnvPoolServer } from "../../fakes/envPoolServer";
import { examplesTaskSet } from "../../helpers/environments";
import { ADMIN, makeExperiment } from "../../helpers/fixtures";

const agent = { baseUrl: "http://127.0.0.1:9/v1", apiKey: "unused", model: "unused" };
let s: EnvPoolServer;
let environmentId: string;
let taskId: string;
beforeAll(async () => {
  s = await new EnvPoolServer({ protocol: "terminal" }).start();
  const e = await makeExperiment();
  environmentId = (await createEnvironment(ADMIN, EnvironmentCreateInput.parse({ experiment: e.id, name: "pool" }))).id;
  taskId = (await examplesTaskSet(e.id)).taskId("examples/count-errors");
});
afterAll(() => s?.kill());

const runner = (over: Partial<PoolRunner>): PoolRunner => ({
  protocol: "terminal",
  label: "test",
  task: ({ spec }) => ({ key: spec.key, instruction: spec.instruction, meta: { task_path: spec.key } }),
  drive: async () => true,
  ...over,
});

async function run(r: PoolRunner, pool = new RemotePoolProvider({ protocol: "terminal", urls: [s.url] })) {
  const episode = await startEpisode({ environmentId, taskId });
  s.requests.length = 0;
  const result = await runOnPool(r, episode.id, { agent, pool }).catch((e: Error) => e);
  return { result, episode: await db().episode.findUniqueOrThrow({ where: { id: episode.id } }) };
}

describe("runOnPool", () => {
  it("allocates, records the lease, resets, drives, evaluates, finishes and closes", async () => {
    const { result, episode } = await run(
      runner({ drive: async ({ reset }) => reset.instruction.includes("examples/count-errors") }),
    );
    expect(result).toMatchObject({ status: "DONE", truncation: null });
    expect(episode.leaseId).toMatch(new RegExp(`^${s.url}#`));
    // How long the pool took to allocate and to evaluate (the Environments page's lease latency).
    expect(Number.isInteger(episode.allocateMs) && episode.allocateMs! >= 0).toBe(true);
    expect(Number.isInteger(episode.evaluateMs) && episode.evaluateMs! >= 0).toBe(true);
    expect(s.requests.map((r) => r.path).filter((p) => p !== "/heartbeat")).toEqual([
      "/allocate",
      "/reset",
      "/evaluate",
      "/close",
    ]);
  });

  it("a loop that throws fails the episode with no outcome, never evaluated, and the lease is closed", async () => {
    const { result, episode } = await run(
      runner({
        drive: async () => {
          throw new Error("the policy went away");
        },
      }),
    );
    expect(result).toBeInstanceOf(Error);
    expect(episode).toMatchObject({
      status: "FAILED",
      outcome: null,
      error: expect.stringMatching(/policy went away/),
    });
    const paths = s.requests.map((r) => r.path);
    expect(paths).not.toContain("/evaluate");
    expect(episode.evaluateMs).toBeNull();
    expect(paths.at(-1)).toBe("/close");
  });

  it("a task the runner cannot send, or a pool of another protocol, fails the episode before anything is allocated", async () => {
    const refused = await run(
      runner({
        task: () => {
          throw new Error("no image");
        },
      }),
    );
    expect(refused.episode).toMatchObject({ status: "FAILED", error: expect.stringMatching(/no image/) });
    expect(s.requests.map((r) => r.path)).not.toContain("/allocate");

    const swe = await run(runner({}), new RemotePoolProvider({ protocol: "swe", urls: [s.url] }));
    expect(swe.episode.error).toMatch(/a test episode needs a terminal pool, not swe/);
    expect(s.requests.map((r) => r.path)).not.toContain("/allocate");
  });
});
