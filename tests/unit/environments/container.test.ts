// The `docker` provider without a container runtime: its refusal (no CLI, no daemon), and the commands it
// gives the CLI, read from a stand-in CLI (tests/fakes/containerRuntime.mjs) that logs every call. The real
// runtime is exercised by tests/integration/environments/docker.test.ts, skipped where none works.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildTag, ContainerProvider, runArgs } from "../../../server/environments/sandbox/container";
import { textFile } from "../../../server/environments/sandbox/files";
import { sandboxLimitsSchema } from "../../../server/environments/sandbox/limits";
import { LeaseError } from "../../../server/environments/sandbox/provider";
import type { Entries } from "../../../server/environments/tasks/entries";
import { harborTask } from "../../../server/environments/tasks/harbor";
import { containerImage } from "../../../server/environments/tasks/image";

const FAKE = path.resolve("tests/fakes/containerRuntime.mjs");
const limits = sandboxLimitsSchema.parse({
  memoryMb: 512,
  pids: 32,
  cpuSeconds: 10,
  fileSizeMb: 8,
  tmpMb: 16,
  wallSeconds: 1,
});
const dockerfile = "FROM debian:stable-slim\nCOPY data.txt /app/data.txt\n";
const context = [textFile("data.txt", "a\nb\n")];
let dir = "";
let logFile = "";

function calls(): { args: string[]; stdin: string | null }[] {
  return readFileSync(logFile, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { args: string[]; stdin: string | null });
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "ocrl-fake-runtime-"));
  logFile = path.join(dir, "calls.jsonl");
  process.env.FAKE_RUNTIME_LOG = logFile;
});
afterEach(() => {
  delete process.env.FAKE_RUNTIME_DAEMON_DOWN;
  delete process.env.FAKE_RUNTIME_LOG;
  rmSync(dir, { recursive: true, force: true });
});

describe("refusal without a runtime", () => {
  it("says which runtime is missing and refuses to allocate with that reason", async () => {
    const p = new ContainerProvider({ runtime: "/nonexistent/docker" });
    const a = await p.available();
    expect(a).toEqual({ ok: false, reason: expect.stringContaining("/nonexistent/docker not found") });
    const e = await p.allocate({ limits, network: "none", image: { ref: "debian" } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LeaseError);
    expect((e as LeaseError).code).toBe("unavailable");
    expect((e as LeaseError).message).toContain("not found");
  });

  it("refuses when the CLI exists but its daemon does not answer", async () => {
    process.env.FAKE_RUNTIME_DAEMON_DOWN = "1";
    const a = await new ContainerProvider({ runtime: FAKE }).available();
    expect(a.ok).toBe(false);
    expect(!a.ok && a.reason).toContain("Cannot connect to the Docker daemon");
  });

  it("refuses a task without an image (it belongs on local-bwrap)", async () => {
    const e = await new ContainerProvider({ runtime: FAKE }).allocate({ limits, network: "none" }).catch((x) => x);
    expect((e as LeaseError).code).toBe("unsupported");
  });
});

describe("the commands it builds", () => {
  it("runs the container with no network, no capabilities and the lease's limits", () => {
    const a = runArgs("ocrl-x", "img:1", limits);
    const pairs = (flag: string) => a.flatMap((v, i) => (v === flag ? [a[i + 1]] : []));
    expect(pairs("--network")).toEqual(["none"]);
    expect(pairs("--cap-drop")).toEqual(["ALL"]);
    expect(pairs("--security-opt")).toEqual(["no-new-privileges"]);
    expect(pairs("--memory")).toEqual(["512m"]);
    expect(pairs("--pids-limit")).toEqual(["32"]);
    expect(pairs("--ulimit")).toEqual([
      `cpu=10:10`,
      `fsize=${8 * 1024 * 1024}:${8 * 1024 * 1024}`,
      "core=0:0",
      "nofile=1024:1024",
    ]);
    expect(pairs("--tmpfs")).toEqual(["/tmp:rw,size=16m"]);
    expect(a.slice(-2)).toEqual(["img:1", "infinity"]);
  });

  it("builds a task image once (cached by content), then allocates, writes, runs, evaluates and removes", async () => {
    const p = new ContainerProvider({ runtime: FAKE });
    const image = { dockerfile, context };
    const one = await p.allocate({ limits, network: "none", image });
    const two = await p.allocate({ limits, network: "none", image });
    const tag = buildTag(dockerfile, context);
    expect(calls().filter((c) => c.args[0] === "build")).toHaveLength(1);
    expect(
      calls()
        .filter((c) => c.args[0] === "run")
        .map((c) => c.args.at(-2)),
    ).toEqual([tag, tag]);
    // Another context is another image.
    expect(buildTag(dockerfile, [textFile("data.txt", "c\n")])).not.toBe(tag);

    await p.reset(one.id, [textFile("notes/todo.txt", "hi"), textFile("run.sh", "echo", true)]);
    const writes = calls().filter((c) => c.stdin !== null);
    expect(writes.map((c) => [c.args.at(-2), c.args.at(-1), c.stdin])).toEqual([
      ["/app/notes/todo.txt", "644", "hi"],
      ["/app/run.sh", "755", "echo"],
    ]);

    const r = await p.exec(one.id, "ls -la", { env: { A: "1" } });
    expect(r).toMatchObject({ exitCode: 0, stdout: "ran: ls -la\n", phase: "agent", timedOut: false });
    const exec = calls().find((c) => c.args.includes("ls -la"))!.args;
    expect(exec).toEqual(["exec", "--workdir", "/app", "--env", "A=1", `ocrl-${one.id}`, "bash", "-c", "ls -la"]);

    const ev = await p.evaluate(one.id, {
      files: [textFile("test.sh", "exit 0")],
      command: "bash /tests/test.sh",
      timeoutSeconds: 5,
    });
    expect(ev).toMatchObject({ reward: 1, rewardFile: "reward.txt", error: null });
    expect(calls().some((c) => c.args.join(" ").includes("rm -rf /logs && mkdir -p /logs/verifier"))).toBe(true);

    // The agent used the container, so a reset starts a fresh one.
    const runsBefore = calls().filter((c) => c.args[0] === "run").length;
    await p.reset(one.id, []);
    expect(calls().filter((c) => c.args[0] === "run").length).toBe(runsBefore + 1);

    await p.close(one.id);
    await p.close(two.id);
    expect(
      calls()
        .filter((c) => c.args[0] === "rm")
        .map((c) => c.args.at(-1)),
    ).toContain(`ocrl-${two.id}`);
    expect(p.list()).toEqual([]);
  });

  it("pulls an image reference, and restarts the container at the wall clock", async () => {
    const p = new ContainerProvider({ runtime: FAKE });
    const lease = await p.allocate({ limits, network: "none", image: { ref: "debian:stable-slim" } });
    expect(
      calls()
        .filter((c) => c.args[0] === "pull")
        .map((c) => c.args[1]),
    ).toEqual(["debian:stable-slim"]);
    await p.reset(lease.id, []);
    const r = await p.exec(lease.id, "sleep-forever");
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(calls().some((c) => c.args[0] === "restart" && c.args.at(-1) === `ocrl-${lease.id}`)).toBe(true);
    await p.close(lease.id);
  });
});

describe("Harbor tasks with an image", () => {
  const entries = (extra: [string, string][]): Entries =>
    new Map(
      [["instruction.md", "Do it."], ["tests/test.sh", "exit 0"], ["environment/data.txt", "a"], ...extra].map(
        ([p, t]) => [p, { bytes: Buffer.from(t), executable: false }],
      ),
    );

  it("keeps the Dockerfile (built with environment/ as context) or the docker_image", () => {
    const built = harborTask(
      entries([
        ["task.toml", ""],
        ["environment/Dockerfile", dockerfile],
      ]),
      "",
    );
    expect(built.container).toEqual({ image: null, dockerfile });
    expect(containerImage(built)).toEqual({ dockerfile, context: [textFile("data.txt", "a")] });
    const pulled = harborTask(entries([["task.toml", '[environment]\ndocker_image = "x/y:1"\n']]), "");
    expect(containerImage(pulled)).toEqual({ ref: "x/y:1" });
    const plain = harborTask(entries([["task.toml", ""]]), "");
    expect(plain.container).toBeNull();
    expect(containerImage(plain)).toBeNull();
  });
});
