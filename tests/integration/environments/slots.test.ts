// An environment's episode limit holds across episode workers: the slots are a Redis semaphore with leases
// (server/environments/episodes/slots.ts). Two workers with their own Redis connections — as two processes
// would have — never run more of one environment's episodes at once than its limit, and a holder that dies
// without giving its slot back frees it when its lease expires.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { createRedis } from "../../../server/platform/redis";
import { closeQueues } from "../../../server/platform/bus/queues";
import { EnvironmentCreateInput, EpisodeLaunchInput, TaskSetImportInput } from "../../../server/environments/schemas";
import { createEnvironment, importTaskSet, launchEpisodes } from "../../../server/environments/service";
import { startEpisodeWorker } from "../../../server/environments/episodes/worker";
import { EnvironmentSlots } from "../../../server/environments/episodes/slots";
import { ADMIN, makeExperiment } from "../../helpers/fixtures";
import { isolateRedis } from "../../helpers/isolate";
import { waitFor } from "../../helpers/waitFor";

isolateRedis("env-slots");

const clients: Redis[] = [];
const client = () => {
  const c = createRedis();
  clients.push(c);
  return c;
};

afterAll(async () => {
  await closeQueues();
  for (const c of clients) c.disconnect();
});

describe("environment slots (Redis semaphore with leases)", () => {
  it("refuses past the limit across clients, and frees a dead holder's slot when its lease expires", async () => {
    const env = `env-${Date.now()}`;
    const a = new EnvironmentSlots({ limit: 1, leaseMs: 600_000, client: client() });
    const b = new EnvironmentSlots({ limit: 1, leaseMs: 600_000, client: client() });
    const slotA = await a.tryTake(env, "ep-a");
    expect(slotA).not.toBeNull();
    expect(await b.tryTake(env, "ep-b")).toBeNull();
    expect(await b.inUse(env)).toBe(1);
    await a.give(slotA!);
    const slotB = await b.tryTake(env, "ep-b");
    expect(slotB).not.toBeNull();
    await b.give(slotB!);

    // A holder that never renews nor gives back (its worker was killed): its short lease runs out.
    const dying = new EnvironmentSlots({ limit: 1, leaseMs: 300, client: client() });
    expect(await dying.tryTake(env, "ep-dead")).not.toBeNull();
    const survivor = new EnvironmentSlots({ limit: 1, leaseMs: 600_000, pollMs: 50, client: client() });
    const slot = await survivor.take(env, "ep-next");
    expect(slot).not.toBeNull();
    // The dead holder's renewal finds its lease gone (someone else holds the slot now).
    expect(await dying.renewAll()).toEqual([expect.stringMatching(/:ep-dead$/)]);
    expect(await survivor.renewAll()).toEqual([]);
    expect(await new EnvironmentSlots({ limit: 1, leaseMs: 600_000, client: client() }).tryTake(env, "ep-x")).toBe(
      null,
    );
    await survivor.give(slot!);
    expect(await survivor.inUse(env)).toBe(0);
  });
});

describe("two episode workers share one environment's limit", () => {
  // A stand-in policy that holds every request until the test releases it, and counts the requests in
  // flight: each episode makes exactly one (its answer has no tool call), so requests in flight are
  // episodes running.
  const held: ServerResponse[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let policy: Server;
  let url = "";
  beforeAll(async () => {
    policy = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on("end", () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        held.push(res);
      });
    });
    await new Promise<void>((r) => policy.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(policy.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    for (const res of held.splice(0)) res.destroy();
    await new Promise((r) => policy.close(r));
  });

  const release = () => {
    const res = held.shift()!;
    inFlight--;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        choices: [{ message: { role: "assistant", content: "\\boxed{391}" }, finish_reason: "stop" }],
        usage: { completion_tokens: 4 },
      }),
    );
  };

  it("never runs more than the limit at once, though each worker alone would run more", async () => {
    const exp = await makeExperiment();
    const environmentId = (
      await createEnvironment(
        ADMIN,
        EnvironmentCreateInput.parse({ experiment: exp.id, name: "toolcall", tools: ["calc", "lookup"] }),
      )
    ).id;
    const taskSetId = (
      await importTaskSet(
        ADMIN,
        TaskSetImportInput.parse({
          experiment: exp.id,
          name: "arithmetic",
          format: "jsonl",
          text: readFileSync("examples/environments/toolcall/arithmetic.jsonl", "utf8"),
          heldOutFraction: 0,
        }),
      )
    ).id;
    const LIMIT = 2;
    const N = 6;
    const workers = [0, 1].map(() =>
      startEpisodeWorker({
        agentFor: async () => ({ baseUrl: url, apiKey: "unused", model: "stand-in" }),
        // Each worker could take three of the environment's episodes on its own.
        concurrency: 3,
        perEnvironment: LIMIT,
        staleMs: 3_600_000,
        maxAttempts: 2,
        sweepMs: 3_600_000,
        experimentIds: [exp.id],
        redis: client(),
      }),
    );
    try {
      const launch = await launchEpisodes(
        ADMIN,
        EpisodeLaunchInput.parse({ environmentId, taskSetId, taskKeys: ["mul-17-23"], n: N, maxSteps: 1 }),
      );
      // Release one episode each time the environment is full (or every remaining one is running).
      for (let done = 0; done < N; done++) {
        await waitFor("the environment's running episodes", () => held.length >= Math.min(LIMIT, N - done));
        release();
      }
      const episodes = await waitFor("every episode done", async () => {
        const rows = await db().episode.findMany({ where: { groupKey: `${launch.launchId}:mul-17-23` } });
        return rows.length === N && rows.every((e) => e.status === "DONE") ? rows : null;
      });
      expect(episodes.map((e) => e.outcome)).toEqual(Array(N).fill(1));
      expect(maxInFlight).toBe(LIMIT);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });
});
