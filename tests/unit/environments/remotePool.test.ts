// The remote-pool provider against stand-ins of the fork's terminal, swe and gui pools (tests/fakes/
// envPoolServer.ts, built from the protocol fixtures extracted from the fork's source): whole episodes, the
// capacity refusals, a lost allocate answer, lease expiry, a pool that dies mid-episode.
import { afterEach, describe, expect, it, vi } from "vitest";
import { LeaseError } from "../../../server/environments/sandbox/provider";
import { RemotePoolProvider, type RemoteTask } from "../../../server/environments/sandbox/remote/provider";
import { EnvPoolServer, poolFixture, type EnvPoolOptions } from "../../fakes/envPoolServer";

const started: EnvPoolServer[] = [];
const providers: RemotePoolProvider[] = [];

async function pool(opts: EnvPoolOptions): Promise<EnvPoolServer> {
  const s = await new EnvPoolServer(opts).start();
  started.push(s);
  return s;
}

function provider(protocol: EnvPoolOptions["protocol"], urls: string[], heartbeatMs = 60_000): RemotePoolProvider {
  const p = new RemotePoolProvider({ protocol, urls, heartbeatMs, requestTimeoutMs: 5_000 });
  providers.push(p);
  return p;
}

const terminalTask: RemoteTask = {
  key: "fix-git",
  instruction: "Recover the lost commit.",
  meta: { task_path: "fix-git" },
};

async function leaseError(p: Promise<unknown>): Promise<LeaseError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(LeaseError);
  return e as LeaseError;
}

afterEach(async () => {
  for (const p of providers.splice(0)) for (const l of p.list()) await p.close(l.id);
  for (const s of started.splice(0)) {
    // The stand-in never answered outside the extracted protocol.
    expect(s.violations).toEqual([]);
    await s.kill().catch(() => undefined);
  }
});

describe("protocol fixtures", () => {
  it.each(["terminal", "swe", "gui"] as const)(
    "%s: pinned to the fork's commit, with the routes the provider uses",
    (p) => {
      const f = poolFixture(p);
      expect(f.header.repository).toBe("toininoi/openclaw-rl");
      expect(f.header.commit).toBe("f48ac358adf9873b5cb2210f1cb234a52ed8a8a3");
      const used = {
        terminal: ["/allocate", "/reset", "/exec_tool", "/evaluate", "/heartbeat", "/close"],
        swe: ["/allocate", "/exec", "/diff", "/evaluate", "/heartbeat", "/close"],
        gui: ["/allocate", "/reset", "/step", "/evaluate", "/heartbeat", "/close"],
      }[p];
      for (const r of used) expect(f.routes[r]?.method, r).toBe("POST");
    },
  );
});

describe("the stand-in pool", () => {
  it("records an answer outside the extracted protocol (so it cannot drift from the real server)", async () => {
    const s = new EnvPoolServer({ protocol: "terminal" });
    // As if the real server stopped sending `reused`: the stand-in's own answers no longer fit.
    const route = s.fixture.routes["/allocate"];
    route.responses = route.responses.map((r) => ({ ...r, keys: r.keys?.filter((k) => k !== "reused") }));
    await s.start();
    try {
      await provider("terminal", [s.url]).allocate({ task: terminalTask, episodeId: "e" });
      expect(s.violations).toEqual(['/allocate 200 ["ok","lease_id","reused"]']);
    } finally {
      for (const p of providers.splice(0)) for (const l of p.list()) await p.close(l.id);
      await s.kill();
    }
  });
});

describe("terminal pool", () => {
  it("runs an episode: allocate → reset → exec_tool → evaluate → close, with the fork's request fields", async () => {
    const s = await pool({ protocol: "terminal" });
    const p = provider("terminal", [s.url]);
    const lease = await p.allocate({ task: terminalTask, episodeId: "ep-1", groupIndex: 2, sampleIndex: 3 });
    expect(lease.poolLeaseId.startsWith("run-")).toBe(true);
    const reset = await p.reset(lease.id);
    expect(reset.instruction).toBe("Task name:fix-git\nTask instruction: Recover the lost commit.");
    expect(reset.tools.length).toBe(4);
    const obs = await p.step(lease.id, {
      kind: "tool",
      name: "shell_exec",
      arguments: { id: "s", command: "make solved" },
    });
    expect(obs.text).toBe("ran: make solved");
    expect((await p.evaluate(lease.id)).reward).toBe(1);
    expect(p.get(lease.id)).toMatchObject({ state: "evaluated", reward: 1, steps: 1 });
    const resetBody = s.requests.find((r) => r.path === "/reset")!.body;
    expect(resetBody).toMatchObject({
      lease_id: lease.poolLeaseId,
      task_meta: { task_name: "fix-git", task_path: "fix-git", instruction: "Recover the lost commit." },
      run_ctx: { uid: "ep-1", group_index: 2, sample_index: 3 },
      task_timeouts: {},
    });
    await p.close(lease.id);
    expect(s.liveLeases()).toEqual([]);
    expect(p.list()).toEqual([]);
  });

  it("scores an unsolved task 0 and refuses a second evaluate (one reward per episode)", async () => {
    const s = await pool({ protocol: "terminal" });
    const p = provider("terminal", [s.url]);
    const lease = await p.allocate({ task: terminalTask, episodeId: "ep-2" });
    await p.reset(lease.id);
    expect((await p.evaluate(lease.id)).reward).toBe(0);
    expect((await leaseError(p.evaluate(lease.id))).code).toBe("bad_state");
    expect(s.requests.filter((r) => r.path === "/evaluate")).toHaveLength(1);
  });

  it("spreads over pools and says `capacity` when every pool refuses with RUN_SLOTS_EXHAUSTED", async () => {
    const a = await pool({ protocol: "terminal", maxRunsPerTask: 1 });
    const b = await pool({ protocol: "terminal", maxRunsPerTask: 1 });
    const p = provider("terminal", [a.url, b.url]);
    const one = await p.allocate({ task: terminalTask, episodeId: "e1" });
    const two = await p.allocate({ task: terminalTask, episodeId: "e2" });
    expect(new Set([one.pool, two.pool])).toEqual(new Set([a.url, b.url]));
    const e = await leaseError(p.allocate({ task: terminalTask, episodeId: "e3" }));
    expect(e.code).toBe("capacity");
    expect(e.message).toContain("RUN_SLOTS_EXHAUSTED");
    // Another task fits until the task cap.
    await p.close(one.id);
    expect((await p.allocate({ task: terminalTask, episodeId: "e4" })).pool).toBe(one.pool);
  });

  it("refuses a new task past max_tasks (TASK_SLOTS_EXHAUSTED)", async () => {
    const s = await pool({ protocol: "terminal", maxTasks: 1 });
    const p = provider("terminal", [s.url]);
    await p.allocate({ task: terminalTask, episodeId: "e1" });
    const e = await leaseError(p.allocate({ task: { ...terminalTask, key: "other" }, episodeId: "e2" }));
    expect(e.code).toBe("capacity");
    expect(e.message).toContain("TASK_SLOTS_EXHAUSTED");
  });

  it("retries an allocate whose answer was lost with the same request_id: one run on the pool", async () => {
    const s = await pool({ protocol: "terminal" });
    s.dropAnswers("/allocate");
    const p = provider("terminal", [s.url]);
    const lease = await p.allocate({ task: terminalTask, episodeId: "ep-3" });
    const allocs = s.requests.filter((r) => r.path === "/allocate");
    expect(allocs).toHaveLength(2);
    expect(allocs[0].body.request_id).toBe(allocs[1].body.request_id);
    expect(s.liveLeases()).toEqual([lease.poolLeaseId]);
  });

  it("loses a lease the pool reaped: the heartbeat notices, every later operation fails, close is quiet", async () => {
    const s = await pool({ protocol: "terminal" });
    const p = provider("terminal", [s.url], 20);
    const lease = await p.allocate({ task: terminalTask, episodeId: "ep-4" });
    await p.reset(lease.id);
    await vi.waitFor(() => expect(p.get(lease.id).lastHeartbeatAt).not.toBeNull());
    s.forget(lease.poolLeaseId);
    await vi.waitFor(() => expect(p.get(lease.id).state).toBe("lost"));
    expect(p.get(lease.id).lostReason).toContain("Unknown run_lease_id");
    expect((await leaseError(p.step(lease.id, { kind: "tool", name: "shell_exec", arguments: {} }))).code).toBe(
      "lease_lost",
    );
    expect((await leaseError(p.evaluate(lease.id))).code).toBe("lease_lost");
    expect(p.get(lease.id).reward).toBeNull();
    await p.close(lease.id);
  });

  it("fails the episode when the pool dies mid-episode: lease lost, no reward, nothing evaluated", async () => {
    const s = await pool({ protocol: "terminal" });
    const p = provider("terminal", [s.url]);
    const lease = await p.allocate({ task: terminalTask, episodeId: "ep-5" });
    await p.reset(lease.id);
    await p.step(lease.id, { kind: "tool", name: "shell_exec", arguments: { command: "make solved" } });
    await s.kill();
    const e = await leaseError(p.step(lease.id, { kind: "tool", name: "shell_exec", arguments: { command: "ls" } }));
    expect(e.code).toBe("lease_lost");
    expect(e.message).toContain("unreachable");
    expect((await leaseError(p.evaluate(lease.id))).code).toBe("lease_lost");
    expect(p.get(lease.id)).toMatchObject({ state: "lost", reward: null, steps: 1 });
    expect(s.requests.filter((r) => r.path === "/evaluate")).toHaveLength(0);
    await p.close(lease.id);
  });

  it("skips a dead pool at allocate and says `unavailable` when none answers", async () => {
    const dead = await pool({ protocol: "terminal" });
    const live = await pool({ protocol: "terminal" });
    await dead.kill();
    const p = provider("terminal", [dead.url, live.url]);
    expect((await p.allocate({ task: terminalTask, episodeId: "e1" })).pool).toBe(live.url);
    await live.kill();
    expect((await leaseError(p.allocate({ task: terminalTask, episodeId: "e2" }))).code).toBe("unavailable");
  });

  it("refuses an action of another protocol", async () => {
    const s = await pool({ protocol: "terminal" });
    const p = provider("terminal", [s.url]);
    const lease = await p.allocate({ task: terminalTask, episodeId: "e" });
    await p.reset(lease.id);
    expect((await leaseError(p.step(lease.id, { kind: "command", command: "ls" }))).code).toBe("unsupported");
  });
});

describe("swe pool", () => {
  const sweTask: RemoteTask = {
    key: "django__django-11099",
    instruction: "Fix the validator.",
    image: "swebench/sweb.eval.x86_64.django__django-11099",
    evalScript: "pytest tests/validators",
  };

  it("runs commands, evaluates the agent's diff with the task's eval script, and closes", async () => {
    const s = await pool({ protocol: "swe" });
    const p = provider("swe", [s.url]);
    const lease = await p.allocate({ task: sweTask, episodeId: "ep-s" });
    expect(lease.poolLeaseId.startsWith("swe-lease-")).toBe(true);
    expect((await p.reset(lease.id)).instruction).toBe("Fix the validator.");
    const obs = await p.step(lease.id, { kind: "command", command: "make solved" });
    expect(obs).toMatchObject({ exitCode: 0, text: "ran: make solved\n" });
    const ev = await p.evaluate(lease.id);
    expect(ev.reward).toBe(1);
    const body = s.requests.find((r) => r.path === "/evaluate")!.body;
    expect(body).toMatchObject({ patch: "+make solved", eval_script: "pytest tests/validators" });
    expect(s.requests.find((r) => r.path === "/allocate")!.body).toEqual({
      image: sweTask.image,
      instance_id: sweTask.key,
    });
    await p.close(lease.id);
    expect(s.liveLeases()).toEqual([]);
  });

  it("reads the full-nodes refusal (500) as capacity", async () => {
    const s = await pool({ protocol: "swe", maxLeases: 1 });
    const p = provider("swe", [s.url]);
    await p.allocate({ task: sweTask, episodeId: "a" });
    expect((await leaseError(p.allocate({ task: sweTask, episodeId: "b" }))).code).toBe("capacity");
  });

  it("refuses a task without an image before calling the pool", async () => {
    const s = await pool({ protocol: "swe" });
    const p = provider("swe", [s.url]);
    await expect(p.allocate({ task: { ...sweTask, image: undefined }, episodeId: "x" })).rejects.toThrow(
      "names no image",
    );
    expect(s.requests).toHaveLength(0);
  });
});

describe("gui pool", () => {
  const guiTask: RemoteTask = { key: "os-1", instruction: "Open the terminal.", config: { id: "os-1" } };

  it("returns the screenshot of every step as PNG bytes", async () => {
    const s = await pool({ protocol: "gui", score: (c) => (c.includes('"DONE"') ? 1 : 0) });
    const p = provider("gui", [s.url]);
    const lease = await p.allocate({ task: guiTask, episodeId: "ep-g" });
    expect(s.requests[0].body).toEqual({ episode_id: "ep-g" });
    const reset = await p.reset(lease.id);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    expect(reset.observation!.screenshot!.subarray(0, 4)).toEqual(png);
    const one = await p.step(lease.id, { kind: "gui", action: "pyautogui.click(10, 10)" });
    const two = await p.step(lease.id, { kind: "gui", action: "DONE" });
    expect(one.screenshot!.subarray(0, 4)).toEqual(png);
    expect(one.screenshot!.equals(two.screenshot!)).toBe(false);
    expect([one.done, two.done]).toEqual([false, true]);
    expect(JSON.parse(two.text)).toMatchObject({ instruction: "ep-g" });
    expect((await p.evaluate(lease.id)).reward).toBe(1);
  });

  it("reads 'Pool exhausted' as capacity", async () => {
    const s = await pool({ protocol: "gui", maxLeases: 1 });
    const p = provider("gui", [s.url]);
    await p.allocate({ task: guiTask, episodeId: "a" });
    expect((await leaseError(p.allocate({ task: guiTask, episodeId: "b" }))).code).toBe("capacity");
  });
});
