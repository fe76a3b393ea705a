import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RunLaunchSchema, type RunLaunch } from "../../../../server/runs/backends/backend";
import { LocalProcessBackend } from "../../../../server/runs/backends/localProcess/backend";

// Harmless stand-ins for the trainer roles: each role prints what it sees, starts a grandchild in its own
// process group, and idles. Every process carries a unique marker in its argv so the test can find any
// survivor in /proc, whatever the backend believes.

/** PIDs of live (non-zombie) processes whose command line contains `marker`. */
function liveMarked(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
      if (state !== "Z" && state !== "X") pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

function roleScript(marker: string, opts: { ignoreTerm?: boolean; exitAfterReady?: number } = {}): string[] {
  const ignore = opts.ignoreTerm ? "process.on('SIGTERM', () => {});" : "";
  const grandchild = `${ignore} setInterval(() => {}, 1000); /* ${marker} */`;
  const main = `
    ${ignore}
    const { spawn } = require("node:child_process");
    const gc = spawn(process.execPath, ["-e", ${JSON.stringify(grandchild)}], { stdio: "ignore" });
    gc.on("spawn", () => {
      const e = process.env;
      console.log("ready " + JSON.stringify({ role: e.OPENCLAW_ROLE, label: e.OPENCLAW_ROLE_LABEL, engine: e.OPENCLAW_ENGINE_INDEX ?? null,
        cvd: e.CUDA_VISIBLE_DEVICES, run: e.RUN_ID, cp: e.CONTROL_PLANE_URL, key: e.CONTROL_PLANE_API_KEY,
        extra: e.EXTRA_FOR_ROLES ?? null, leaked: e.OPENCLAW_TEST_LEAK ?? null, pid: process.pid, gc: gc.pid }));
      ${opts.exitAfterReady !== undefined ? `setTimeout(() => process.exit(${opts.exitAfterReady}), 50);` : ""}
    });
    setInterval(() => {}, 1000); /* ${marker} */`;
  return [process.execPath, "-e", main];
}

interface Ready {
  role: string;
  label: string;
  engine: string | null;
  cvd: string;
  run: string;
  cp: string;
  key: string;
  extra: string | null;
  leaked: string | null;
  pid: number;
  gc: number;
}

function readyLines(logs: string): Ready[] {
  return logs
    .split("\n")
    .map((l) => /^\[[^\]]+\] ready (.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => JSON.parse(m[1]) as Ready);
}

function launch(
  runId: string,
  roles: { actor: string[]; rollout: string[]; prm?: string[] },
  gpu: Record<string, unknown> = {},
  graceMs = 5_000,
): RunLaunch {
  return RunLaunchSchema.parse({
    runId,
    experimentSlug: "exp",
    config: {
      controlPlaneUrl: "http://127.0.0.1:3000",
      apiKey: "ocrl_local_key",
      gpu,
      localProcess: {
        roles: {
          actor: { command: roles.actor },
          rollout: { command: roles.rollout },
          ...(roles.prm ? { prm: { command: roles.prm } } : {}),
        },
        env: { EXTRA_FOR_ROLES: "yes" },
        graceMs,
      },
    },
  });
}

const backends: LocalProcessBackend[] = [];
function newBackend(): LocalProcessBackend {
  const b = new LocalProcessBackend();
  backends.push(b);
  return b;
}
afterEach(async () => {
  await Promise.all(backends.splice(0).map((b) => b.stopAll()));
});

const WAIT = { timeout: 20_000, interval: 50 };

describe("LocalProcessBackend", () => {
  it("previews one command line per role group with its devices", () => {
    const plan = new LocalProcessBackend().preview(
      launch(
        "p",
        { actor: ["python3", "actor.py"], rollout: ["python3", "engine.py", "--port", "30000"] },
        { totalGpus: 2, actorGpus: 1, rolloutGpus: 1, rolloutGpusPerEngine: 1, prmGpus: 0 },
      ),
    );
    expect(plan.command.split("\n").filter((l) => l.startsWith("CUDA_VISIBLE_DEVICES"))).toEqual([
      "CUDA_VISIBLE_DEVICES=0 python3 actor.py",
      "CUDA_VISIBLE_DEVICES=1 python3 engine.py --port 30000",
    ]);
    expect(plan.notes).toEqual([
      "Each role runs in its own process group on this machine; stopping the run ends exactly those groups.",
    ]);
  });

  it("starts actor, rollout and PRM engines with their CUDA_VISIBLE_DEVICES; stop ends every tree", async () => {
    process.env.OPENCLAW_TEST_LEAK = "must-not-reach-children";
    const marker = `ocrl-test-${randomUUID()}`;
    const backend = newBackend();
    const script = roleScript(marker);
    // 8 GPUs: actor 0-3, rollout engines 4 and 5 (TP 1), PRM engine 6-7
    const run = launch("run_local_1", { actor: script, rollout: script, prm: script }, { rolloutGpusPerEngine: 1 });
    const { externalJobId } = await backend.start(run);
    expect(externalJobId).toMatch(/^local:\d+(,\d+){3}$/);

    const ready = await vi.waitFor(async () => {
      const r = readyLines(await backend.logs(run));
      expect(r).toHaveLength(4);
      return r;
    }, WAIT);
    delete process.env.OPENCLAW_TEST_LEAK;

    const byLabel = Object.fromEntries(ready.map((r) => [r.label, r]));
    expect(Object.keys(byLabel).sort()).toEqual(["actor", "prm-0", "rollout-0", "rollout-1"]);
    expect(byLabel.actor).toMatchObject({ role: "actor", engine: null, cvd: "0,1,2,3" });
    expect(byLabel["rollout-0"]).toMatchObject({ role: "rollout", engine: "0", cvd: "4" });
    expect(byLabel["rollout-1"]).toMatchObject({ role: "rollout", engine: "1", cvd: "5" });
    expect(byLabel["prm-0"]).toMatchObject({ role: "prm", engine: "0", cvd: "6,7" });
    for (const r of ready) {
      expect(r).toMatchObject({
        run: "run_local_1",
        cp: "http://127.0.0.1:3000",
        key: "ocrl_local_key",
        extra: "yes",
        leaked: null,
      });
    }
    // 4 roles + 4 grandchildren alive before the stop
    expect(liveMarked(marker).sort()).toEqual(ready.flatMap((r) => [r.pid, r.gc]).sort());
    expect((await backend.status(run)).state).toBe("RUNNING");

    await backend.stop(run);
    expect(liveMarked(marker)).toEqual([]);
    expect(await backend.status(run)).toEqual({ state: "KILLED", message: "stopped on request" });
  });

  it("escalates to SIGKILL for trees that ignore SIGTERM", async () => {
    const marker = `ocrl-test-${randomUUID()}`;
    const backend = newBackend();
    const stubborn = roleScript(marker, { ignoreTerm: true });
    const run = launch("run_local_2", { actor: stubborn, rollout: stubborn }, { prmGpus: 0 }, 300);
    await backend.start(run);
    await vi.waitFor(async () => expect(readyLines(await backend.logs(run))).toHaveLength(2), WAIT);
    expect(liveMarked(marker)).toHaveLength(4);

    await backend.stop(run);
    expect(liveMarked(marker)).toEqual([]);
    expect(await backend.logs(run)).toMatch(/\[actor\] was killed by SIGKILL/);
  });

  it("a crashing engine fails the run and takes the other roles down", async () => {
    const marker = `ocrl-test-${randomUUID()}`;
    const backend = newBackend();
    const run = launch("run_local_3", {
      actor: roleScript(marker),
      rollout: roleScript(marker, { exitAfterReady: 3 }),
      prm: roleScript(marker),
    });
    await backend.start(run);
    await vi.waitFor(async () => expect((await backend.status(run)).state).toBe("FAILED"), WAIT);
    expect((await backend.status(run)).message).toBe("rollout engine 0 (GPUs 4,5) exited with code 3");
    await vi.waitFor(() => expect(liveMarked(marker)).toEqual([]), WAIT);
    await backend.stop(run); // stop after failure keeps the failure
    expect((await backend.status(run)).state).toBe("FAILED");
  });

  it("a clean actor exit finishes the run and stops the engines", async () => {
    const marker = `ocrl-test-${randomUUID()}`;
    const backend = newBackend();
    const run = launch(
      "run_local_4",
      { actor: roleScript(marker, { exitAfterReady: 0 }), rollout: roleScript(marker) },
      { prmGpus: 0 },
    );
    await backend.start(run);
    await vi.waitFor(async () => expect((await backend.status(run)).state).toBe("FINISHED"), WAIT);
    await vi.waitFor(() => expect(liveMarked(marker)).toEqual([]), WAIT);
    // The engine's exit is logged when its 'exit' event arrives, which can trail the process's death.
    await vi.waitFor(
      async () =>
        expect(await backend.logs(run, { tail: 2 })).toMatch(
          /^\[rollout-0\] (exited with code|was killed by SIGTERM)/m,
        ),
      WAIT,
    );
    backend.forget(run.runId);
    expect((await backend.status(run)).message).toMatch(/no local processes are tracked for run run_local_4/);
  });

  it("a role that cannot start fails start() and leaves nothing behind", async () => {
    const marker = `ocrl-test-${randomUUID()}`;
    const backend = newBackend();
    const run = launch("run_local_5", {
      actor: roleScript(marker),
      rollout: roleScript(marker),
      prm: ["/nonexistent/prm-server"],
    });
    await expect(backend.start(run)).rejects.toThrowError(/prm-0: spawn \/nonexistent\/prm-server ENOENT/);
    expect(liveMarked(marker)).toEqual([]);
    // Nothing is tracked for it any more: the job is lost (the supervisor records CRASHED; the failed start already failed the run).
    expect((await backend.status(run)).state).toBe("LOST");
  });

  it("refuses splits it cannot run locally", async () => {
    const backend = newBackend();
    const cmd = ["node", "-e", ""];
    await expect(
      backend.start(launch("r6", { actor: cmd, rollout: cmd, prm: cmd }, { nodes: 2 })),
    ).rejects.toThrowError(/runs on one node, but the GPU split has 2 nodes/);
    await expect(backend.start(launch("r7", { actor: cmd, rollout: cmd }))).rejects.toThrowError(
      /localProcess.roles.prm has no command/,
    );
    await expect(
      backend.start(launch("r8", { actor: cmd, rollout: cmd, prm: cmd }, { rolloutGpus: 3 })),
    ).rejects.toThrowError(/rollout GPUs \(3\) must be a multiple/);
  });

  it("a second start of the same run does not launch again", async () => {
    const marker = `ocrl-test-${randomUUID()}`;
    const backend = newBackend();
    const run = launch("run_local_9", { actor: roleScript(marker), rollout: roleScript(marker) }, { prmGpus: 0 });
    const first = await backend.start(run);
    expect(await backend.start(run)).toEqual(first);
    await vi.waitFor(async () => expect(readyLines(await backend.logs(run))).toHaveLength(2), WAIT);
    expect(liveMarked(marker)).toHaveLength(4);
    await backend.stop(run);
    expect(liveMarked(marker)).toEqual([]);
  });
});
