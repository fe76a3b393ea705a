// The environment endpoints over real HTTP, as a script would call them (REST with a Bearer key) and as the
// pages do (tRPC): create an environment, import a task set (a bad line is a 400 naming file and field),
// launch a group, list and read episodes, start and stop a standing launch; a key of another experiment sees
// none of them.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../helpers/apiServer";
import { makeExperiment, makeKey, makeRun } from "../../helpers/fixtures";
import { isolateRedis } from "../../helpers/isolate";

isolateRedis("env-rest");

let server: Awaited<ReturnType<typeof startApiServer>>;
let experiment: { id: string; slug: string };
let key: string;
beforeAll(async () => {
  server = await startApiServer();
  experiment = await makeExperiment();
  key = await makeKey(["read", "write"], experiment.id);
});
afterAll(() => server.close());

async function call(method: string, path: string, body?: unknown, bearer = key) {
  const res = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { [k: string]: unknown } };
}

describe("environment REST endpoints", () => {
  it("create → import → launch → list → get", async () => {
    const env = await call("POST", "/environments", {
      experiment: experiment.slug,
      name: "toolcall",
      tools: ["calc", "lookup"],
      limits: { wallSeconds: 30 },
    });
    expect(env.status).toBe(201);
    expect(env.body).toMatchObject({ provider: "local-bwrap", tools: ["calc", "lookup"] });

    const got = await call("GET", `/environments/${env.body.id as string}`);
    expect(got.status).toBe(200);
    expect(got.body.episodes).toEqual({ QUEUED: 0, RUNNING: 0, DONE: 0, FAILED: 0 });

    const set = await call("POST", "/task-sets/import", {
      experiment: experiment.slug,
      name: "arithmetic",
      format: "jsonl",
      text: readFileSync("examples/environments/toolcall/arithmetic.jsonl", "utf8"),
      heldOutFraction: 0,
    });
    expect(set.status).toBe(201);
    const listed = await call("GET", `/task-sets?experiment=${experiment.slug}`);
    expect((listed.body as unknown as { name: string }[]).map((s) => s.name)).toEqual(["arithmetic"]);
    const version = await call("GET", `/task-sets/${set.body.id as string}?version=1`);
    expect((version.body.tasks as { key: string }[]).map((t) => t.key)).toContain("mul-17-23");

    const launch = await call("POST", "/episodes/launch", {
      environmentId: env.body.id,
      taskSetId: set.body.id,
      taskKeys: ["mul-17-23", "sum-3"],
      n: 3,
    });
    expect(launch.status).toBe(201);
    expect(launch.body).toMatchObject({ episodes: 6, groups: 2 });
    const episodes = await call(
      "GET",
      `/episodes?experiment=${experiment.slug}&launchId=${launch.body.launchId as string}`,
    );
    const rows = episodes.body as unknown as { id: string; status: string; groupKey: string; task: { key: string } }[];
    expect(rows).toHaveLength(6);
    expect(new Set(rows.map((r) => r.groupKey)).size).toBe(2);
    const one = await call("GET", `/episodes/${rows[0].id}`);
    expect(one.body).toMatchObject({ id: rows[0].id, steps: [], estimator: "grpo", maxSteps: 10 });
  });

  it("a bad task line is a 400 naming the file and the field, and writes nothing", async () => {
    const bad = await call("POST", "/task-sets/import", {
      experiment: experiment.slug,
      name: "broken",
      format: "jsonl",
      text: '{"id": "a", "prompt": "1+1?", "answer": "2"}\n{"id": "b", "prompt": "2+2?", "tools": ["calc"]}\n',
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("tasks.jsonl line 2");
    expect(JSON.stringify(bad.body)).toContain("answer");
    const listed = await call("GET", `/task-sets?experiment=${experiment.slug}`);
    expect((listed.body as unknown as { name: string }[]).map((s) => s.name)).not.toContain("broken");
  });

  it("a remote-pool environment keeps its protocol and pools; a harness is stored with its environment", async () => {
    const pool = await call("POST", "/environments", {
      experiment: experiment.slug,
      name: "terminal-pool",
      provider: "remote-pool",
      pool: { protocol: "terminal", urls: ["http://127.0.0.1:18090", "http://localhost:18091/"] },
    });
    expect(pool.status).toBe(201);
    expect(pool.body).toMatchObject({
      provider: "remote-pool",
      pool: { protocol: "terminal", urls: ["http://127.0.0.1:18090", "http://localhost:18091/"] },
      harness: null,
    });
    const got = await call("GET", `/environments/${pool.body.id as string}`);
    expect(got.body.health).toMatchObject({ ok: true, detail: expect.stringContaining("terminal pool(s)") });

    const agent = await call("POST", "/environments", {
      experiment: experiment.slug,
      name: "openclaw",
      harness: { kind: "openclaw", budget: { turns: 20 } },
    });
    expect(agent.status).toBe(201);
    expect(agent.body).toMatchObject({ provider: "local-bwrap", pool: null, harness: { kind: "openclaw" } });
  });

  it.each([
    [{ provider: "remote-pool" }, "pool", "needs its pools"],
    [{ pool: { protocol: "gui", urls: ["http://127.0.0.1:1"] } }, "pool", "belong to remote-pool"],
    [{ provider: "remote-pool", pool: { protocol: "vnc", urls: ["http://127.0.0.1:1"] } }, "pool.protocol", ""],
    [{ provider: "remote-pool", pool: { protocol: "swe", urls: [] } }, "pool.urls", ""],
    [{ provider: "remote-pool", pool: { protocol: "swe", urls: ["not a url"] } }, "pool.urls.0", ""],
    [{ provider: "docker", harness: { kind: "openclaw" } }, "harness", "runs on local-bwrap"],
    [{ harness: { kind: "custom", definition: { name: "x" } } }, "harness.definition.command", ""],
  ])("refuses %j with a 400 naming %s", async (settings, path, text) => {
    const res = await call("POST", "/environments", { experiment: experiment.slug, name: "bad", ...settings });
    expect(res.status).toBe(400);
    const body = JSON.stringify(res.body);
    expect(body).toContain(`"${path}"`);
    expect(body).toContain(text);
  });

  it("refuses a pool address the egress policy refuses (a metadata address), and saves nothing", async () => {
    const res = await call("POST", "/environments", {
      experiment: experiment.slug,
      name: "metadata",
      provider: "remote-pool",
      pool: { protocol: "terminal", urls: ["http://127.0.0.1:18090", "http://169.254.169.254/"] },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain("pool.urls.1");
    expect(JSON.stringify(res.body)).toContain("UPSTREAM_ALLOWLIST");
    const listed = await call("GET", `/environments?experiment=${experiment.slug}`);
    expect((listed.body as unknown as { name: string }[]).map((e) => e.name)).not.toContain("metadata");
  });

  it("a standing launch: start (201, topped up to its cap), 409 for a second, list, stop; 400 past the episode cap", async () => {
    const env = await call("POST", "/environments", {
      experiment: experiment.slug,
      name: "standing",
      tools: ["calc", "lookup"],
    });
    const set = await call("POST", "/task-sets/import", {
      experiment: experiment.slug,
      name: "standing",
      format: "jsonl",
      text: readFileSync("examples/environments/toolcall/arithmetic.jsonl", "utf8"),
      heldOutFraction: 0,
    });
    await makeRun(experiment.id);
    const input = { environmentId: env.body.id, taskSetId: set.body.id, n: 2, maxGroupsInFlight: 3 };
    const started = await call("POST", "/standing-launches", input);
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ active: true, groupsLaunched: 3, groupsInFlight: 3, waitingForRun: false });
    const again = await call("POST", "/standing-launches", input);
    expect(again.status).toBe(409);
    const listed = await call("GET", `/standing-launches?experiment=${experiment.slug}`);
    expect((listed.body as unknown as { id: string }[]).map((r) => r.id)).toEqual([started.body.id]);
    const other = await makeKey(["read", "write"], (await makeExperiment()).id);
    const foreign = await call("POST", `/standing-launches/${started.body.id as string}/stop`, {}, other);
    expect([403, 404]).toContain(foreign.status);
    const stopped = await call("POST", `/standing-launches/${started.body.id as string}/stop`, {});
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ active: false, groupsLaunched: 3 });
    const tooMany = await call("POST", "/standing-launches", { ...input, n: 64, maxGroupsInFlight: 64 });
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(tooMany.body)).toContain("maxGroupsInFlight");
  });

  it("another experiment's key sees none of it", async () => {
    const other = await makeExperiment();
    const otherKey = await makeKey(["read", "write"], other.id);
    const res = await call("GET", `/environments?experiment=${experiment.slug}`, undefined, otherKey);
    expect([403, 404]).toContain(res.status);
  });
});
