// A killed episode worker, for real: workers/episodes runs as its own process against the real recording
// proxy; it is SIGKILLed while its episode waits on the policy; a second worker process's sweeper finds the
// episode's heartbeat stale, queues it again, and runs it from the start (attempt 2, only the new attempt's
// steps) to its outcome.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { EnvironmentCreateInput, EpisodeLaunchInput, TaskSetImportInput } from "../../../server/environments/schemas";
import { createEnvironment, importTaskSet, launchEpisodes } from "../../../server/environments/service";
import { WORKERS, workerCommand } from "../../../workers/registry";
import { exited } from "../../../bench/lib/cluster";
import { ADMIN } from "../../helpers/fixtures";
import { isolateRedis } from "../../helpers/isolate";
import { waitFor } from "../../helpers/waitFor";
import { harness, type Harness } from "../proxy/setup";

isolateRedis("env-worker-process");

const root = path.resolve(import.meta.dirname, "../../..");
const children: ChildProcess[] = [];
let h: Harness;

function startWorker(): ChildProcess {
  const { command, args } = workerCommand(
    root,
    WORKERS.find((w) => w.name === "episodes")!,
  );
  const child = spawn(command, args, {
    cwd: root,
    env: {
      ...process.env,
      EPISODES_PROXY_URL: `${h.proxy.url}/v1`,
      EPISODES_EXPERIMENTS: h.experiment.id,
      EPISODE_STALE_S: "5",
      EPISODES_SWEEP_MS: "500",
    },
    stdio: ["ignore", "ignore", "ignore"],
  });
  children.push(child);
  return child;
}

beforeAll(async () => {
  h = await harness();
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await h?.close();
});

describe("a killed episode worker", () => {
  it("leaves its episode to another worker, which runs it again from the start", async () => {
    const environmentId = (
      await createEnvironment(
        ADMIN,
        EnvironmentCreateInput.parse({ experiment: h.experiment.id, name: "toolcall", tools: ["calc", "lookup"] }),
      )
    ).id;
    const taskSetId = (
      await importTaskSet(
        ADMIN,
        TaskSetImportInput.parse({
          experiment: h.experiment.id,
          name: "arithmetic",
          format: "jsonl",
          text: readFileSync("examples/environments/toolcall/arithmetic.jsonl", "utf8"),
          heldOutFraction: 0,
        }),
      )
    ).id;
    // The first attempt's policy call never answers: the worker is mid-episode when it dies.
    h.fake.reset();
    h.fake.enqueue(
      { kind: "hang" },
      { content: "Computing.", toolCalls: [{ name: "calc", arguments: JSON.stringify({ expression: "17*23" }) }] },
      { content: "\\boxed{391}" },
    );
    const first = startWorker();
    const launch = await launchEpisodes(
      ADMIN,
      EpisodeLaunchInput.parse({ environmentId, taskSetId, taskKeys: ["mul-17-23"], n: 1 }),
    );
    const id = `${launch.launchId}-0-0`;
    await waitFor("the first worker's policy call", async () => (h.fake.requests.length === 1 ? true : null), 60_000);
    expect(await db().episode.findUniqueOrThrow({ where: { id } })).toMatchObject({ status: "RUNNING", attempts: 1 });
    first.kill("SIGKILL");
    await exited(first);

    const second = startWorker();
    const done = await waitFor(
      "the episode's second attempt",
      async () => {
        const e = await db().episode.findUniqueOrThrow({ where: { id }, include: { steps: true } });
        return e.status === "DONE" ? e : null;
      },
      90_000,
    );
    expect(done).toMatchObject({ outcome: 1, attempts: 2 });
    expect(done.steps.map((s) => s.index).sort()).toEqual([0, 1]);
    expect(done.sessionId).toBe(`episode-${id}-2`);
    second.kill("SIGTERM");
    await exited(second);
  }, 200_000);
});
