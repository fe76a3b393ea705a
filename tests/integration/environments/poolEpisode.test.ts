// A terminal episode on a remote pool, end to end: the stand-in of terminal-rl's pool_server (built from the
// extracted protocol fixture) holds the task and its verifier, the scripted stand-in policy answers through
// the real recording proxy with the pool's own tools, and the pool's score is the outcome. A pool that dies
// mid-episode fails the episode: no outcome, and the lease is never evaluated.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { runPoolEpisode } from "../../../server/environments/episodes/poolRunner";
import { RemotePoolProvider } from "../../../server/environments/sandbox/remote/provider";
import { EnvironmentCreateInput } from "../../../server/environments/schemas";
import { createEnvironment } from "../../../server/environments/service";
import { taskSpecSchema } from "../../../server/environments/tasks/spec";
import { EnvPoolServer } from "../../fakes/envPoolServer";
import { isolateRedis } from "../../helpers/isolate";
import { ADMIN } from "../../helpers/fixtures";
import { waitFor } from "../../helpers/waitFor";
import { harness, type Harness } from "../proxy/setup";
import { examplesTaskSet, shellCall } from "../../helpers/environments";

isolateRedis("env-pools");

describe("terminal episodes on a remote pool", () => {
  let h: Harness;
  let environmentId: string;
  let taskId: string;
  beforeAll(async () => {
    h = await harness();
    const env = await createEnvironment(
      ADMIN,
      EnvironmentCreateInput.parse({ experiment: h.experiment.id, name: "pool" }),
    );
    environmentId = env.id;
    taskId = (await examplesTaskSet(h.experiment.id)).taskId("examples/count-errors");
  });
  afterAll(() => h?.close());

  const agent = () => ({ baseUrl: `${h.proxy.url}/v1`, apiKey: h.key, model: h.fake.model });

  it("runs the agent loop with the pool's tools and takes the pool's score as the outcome", async () => {
    const s = await new EnvPoolServer({ protocol: "terminal" }).start();
    const pool = new RemotePoolProvider({ protocol: "terminal", urls: [s.url] });
    try {
      h.fake.reset();
      h.fake.enqueue(shellCall("make solved"), { content: "Solved." });
      const ep = await runPoolEpisode({ environmentId, taskId, agent: agent(), pool });
      expect(ep).toMatchObject({ status: "DONE", outcome: 1, truncation: null, sessionId: `episode-${ep.id}-1` });
      expect(ep.steps).toHaveLength(1);
      expect(ep.steps[0].turnId).toEqual(expect.any(String));
      // The policy was offered the pool's tools and read the pool's observation back.
      const first = h.fake.requests[0].body as {
        tools: { function: { name: string } }[];
        messages: { content: string }[];
      };
      expect(first.tools.map((t) => t.function.name)).toContain("shell_exec");
      const spec = taskSpecSchema.parse((await db().task.findUniqueOrThrow({ where: { id: taskId } })).spec);
      expect(first.messages[0].content).toBe(`Task name:examples/count-errors\nTask instruction: ${spec.instruction}`);
      const second = h.fake.requests[1].body.messages as { role: string; content: string }[];
      expect(second.at(-1)).toMatchObject({ role: "tool", content: "ran: make solved" });
      expect(s.requests.find((r) => r.path === "/reset")!.body).toMatchObject({
        task_meta: { task_path: "examples/count-errors" },
        run_ctx: { uid: ep.id },
      });
      expect(s.liveLeases()).toEqual([]);
      expect(s.violations).toEqual([]);
    } finally {
      await s.kill();
    }
  });

  it("fails the episode when the pool dies mid-episode: no outcome, never evaluated", async () => {
    const s = await new EnvPoolServer({ protocol: "terminal" }).start();
    const pool = new RemotePoolProvider({ protocol: "terminal", urls: [s.url] });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    h.fake.reset();
    // The second step's answer waits until the pool is gone.
    h.fake.enqueue(shellCall("make solved"), { ...shellCall("ls"), waitFor: gate }, { content: "Solved." });
    const run = runPoolEpisode({ environmentId, taskId, agent: agent(), pool });
    await waitFor("the first tool call on the pool", async () =>
      s.requests.some((r) => r.path === "/exec_tool") ? true : null,
    );
    await s.kill();
    release();
    await expect(run).rejects.toThrow(/unreachable/);
    const ep = await db().episode.findFirstOrThrow({
      where: { environmentId, status: "FAILED" },
      orderBy: { createdAt: "desc" },
    });
    expect(ep).toMatchObject({ outcome: null });
    expect(ep.error).toContain("unreachable");
    expect(s.requests.filter((r) => r.path === "/evaluate")).toHaveLength(0);
    expect(pool.list()).toEqual([]);
  });
});
