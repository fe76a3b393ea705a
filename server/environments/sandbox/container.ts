// `docker`: each lease is one container of the task's image (pulled, or built from its Dockerfile and cached
// under a tag named by the content's hash), driven through the runtime's CLI — Docker or Podman, which take
// the same flags (SANDBOX_CONTAINER_RUNTIME; by default the first of docker, podman on PATH). The container
// gets no network (`--network none`), no capabilities, no new privileges, and the lease's limits: memory and
// pids from the cgroup (`--memory`, `--pids-limit`), CPU seconds, file size and core dumps as rlimits
// (`--ulimit`), a private /tmp of `tmpMb`. It idles (`sleep infinity`) and every command is a `exec` in it,
// with our wall clock: at the timeout the container is restarted before the next command, which kills every process in it and
// keeps its files (as local-bwrap kills the whole sandbox). close() removes the container (`rm -f`).
//
// Where no runtime works (none installed, or its daemon down), `available()` says why and allocate refuses
// with that reason; tasks without an image keep running on local-bwrap.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { settings } from "../../platform/env";
import { fileBytes, type SandboxFile } from "./files";
import type { SandboxLimits } from "./limits";
import { CappedOutput } from "./output";
import { LeaseTable, snapshotLease } from "./leaseTable";
import {
  assertState,
  LeaseError,
  type AllocateOptions,
  type Availability,
  type ContainerImage,
  type EvaluationResult,
  type ExecOptions,
  type ExecResult,
  type LeaseInfo,
  type SandboxProvider,
  type VerifierSpec,
} from "./provider";
import { readReward } from "./reward";
import { which } from "./which";

export const CONTAINER_WORK_DIR = "/app";
const MiB = 1024 * 1024;
/** Image builds and pulls are slow and happen once per image. */
const IMAGE_TIMEOUT_MS = 30 * 60_000;
const CONTROL_TIMEOUT_MS = 120_000;

export interface ContainerOptions {
  /** `docker`, `podman`, or a path; null: the first of them on PATH. */
  runtime: string | null;
}

export function containerOptions(): ContainerOptions {
  return { runtime: settings("sandbox").SANDBOX_CONTAINER_RUNTIME ?? null };
}

export interface CliResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  stdoutBytes: number;
  stderrBytes: number;
  truncated: boolean;
  durationMs: number;
}

interface Lease {
  info: LeaseInfo & { commands: ExecResult[] };
  container: string;
  image: string;
  queue: Promise<unknown>;
  /** The container was used since it started, so a reset must start a fresh one. */
  dirty: boolean;
}

/** The `run` arguments of a lease's container (exported so its flags can be checked without a runtime). */
export function runArgs(name: string, image: string, limits: SandboxLimits): string[] {
  return [
    "run",
    "--detach",
    "--name",
    name,
    "--label",
    "ocrl.lease=1",
    "--network",
    "none",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--memory",
    `${limits.memoryMb}m`,
    "--memory-swap",
    `${limits.memoryMb}m`,
    "--pids-limit",
    String(limits.pids),
    "--ulimit",
    `cpu=${limits.cpuSeconds}:${limits.cpuSeconds}`,
    "--ulimit",
    `fsize=${limits.fileSizeMb * MiB}:${limits.fileSizeMb * MiB}`,
    "--ulimit",
    "core=0:0",
    "--ulimit",
    "nofile=1024:1024",
    "--tmpfs",
    `/tmp:rw,size=${limits.tmpMb}m`,
    "--workdir",
    CONTAINER_WORK_DIR,
    "--entrypoint",
    "sleep",
    image,
    "infinity",
  ];
}

/** The tag an image built from `dockerfile` + `context` gets: same content, same tag, built once. */
export function buildTag(dockerfile: string, context: SandboxFile[]): string {
  const h = createHash("sha256").update(dockerfile);
  for (const f of [...context].sort((a, b) => a.path.localeCompare(b.path)))
    h.update(`\0${f.path}\0${f.executable ? 1 : 0}\0`).update(fileBytes(f));
  return `ocrl-task:${h.digest("hex").slice(0, 24)}`;
}

export class ContainerProvider implements SandboxProvider {
  readonly name = "docker";
  private readonly leases = new LeaseTable<Lease>();
  private availability: Availability | null = null;
  private runtimePath: string | null = null;
  /** Images known present (built, pulled or found), so each is checked once per process. */
  private readonly images = new Map<string, Promise<void>>();

  constructor(private readonly opts: ContainerOptions = containerOptions()) {}

  async available(): Promise<Availability> {
    if (this.availability) return this.availability;
    const candidates = this.opts.runtime ? [this.opts.runtime] : ["docker", "podman"];
    const found = candidates.map((c) => which(c)).find((p): p is string => p !== null);
    if (!found)
      return (this.availability = {
        ok: false,
        reason: `no container runtime: ${candidates.join(" or ")} not found on PATH (set SANDBOX_CONTAINER_RUNTIME)`,
      });
    this.runtimePath = found;
    // `info` needs the daemon (Docker) or a working storage setup (Podman): the CLI alone is not enough.
    const info = await this.cli(["info", "--format", "{{json .}}"], CONTROL_TIMEOUT_MS);
    if (info.exitCode !== 0)
      return (this.availability = {
        ok: false,
        reason: `${path.basename(found)} cannot reach its engine: ${(info.stderr || info.stdout).trim().slice(0, 300)}`,
      });
    return (this.availability = { ok: true, detail: `${path.basename(found)} (${found})` });
  }

  async allocate(opts: AllocateOptions): Promise<LeaseInfo> {
    if (opts.network !== "none") throw new LeaseError("unsupported", `docker supports network policy "none" only`);
    if (!opts.image) throw new LeaseError("unsupported", "the docker provider needs the task's image");
    const ok = await this.available();
    if (!ok.ok) throw new LeaseError("unavailable", ok.reason);
    const image = await this.ensureImage(opts.image);
    const id = `sbx-${randomBytes(8).toString("hex")}`;
    const container = `ocrl-${id}`;
    await this.start(container, image, opts.limits);
    const now = new Date().toISOString();
    const lease: Lease = {
      info: {
        id,
        provider: this.name,
        state: "allocated",
        createdAt: now,
        lastUsedAt: now,
        limits: opts.limits,
        network: opts.network,
        workDir: CONTAINER_WORK_DIR,
        commands: [],
      },
      container,
      image,
      queue: Promise.resolve(),
      dirty: false,
    };
    this.leases.set(id, lease);
    return snapshotLease(lease);
  }

  /** A fresh container of the same image (when the old one was used), then the files written into /app. */
  reset(leaseId: string, files: SandboxFile[]): Promise<LeaseInfo> {
    return this.leases.serial(leaseId, async (lease) => {
      assertState(lease.info, "reset");
      if (lease.dirty) {
        await this.must(["rm", "--force", lease.container]);
        await this.start(lease.container, lease.image, lease.info.limits);
        lease.dirty = false;
      }
      await this.writeFiles(lease, CONTAINER_WORK_DIR, files);
      lease.info.state = "ready";
      return snapshotLease(lease);
    });
  }

  exec(leaseId: string, command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    return this.leases.serial(leaseId, async (lease) => {
      assertState(lease.info, "exec");
      // A container's mounts are fixed at `run`; the harness bridge needs local-bwrap for now.
      if (opts.sockets?.length)
        throw new LeaseError("unsupported", "the docker provider cannot bind sockets per command");
      const phase = opts.phase ?? "agent";
      for (const ro of opts.readOnly ?? []) await this.writeFiles(lease, ro.at, ro.files);
      try {
        return await this.run(lease, command, opts);
      } finally {
        for (const ro of opts.readOnly ?? []) await this.must(["exec", lease.container, "rm", "-rf", ro.at]);
        if (phase === "agent") lease.dirty = true;
      }
    });
  }

  evaluate(leaseId: string, verifier: VerifierSpec): Promise<EvaluationResult> {
    return this.leases.serial(leaseId, async (lease) => {
      assertState(lease.info, "evaluate");
      // Fresh logs, so nothing the agent did can plant a reward.
      await this.must(["exec", lease.container, "sh", "-c", "rm -rf /logs && mkdir -p /logs/verifier /logs/agent"]);
      await this.writeFiles(lease, "/tests", verifier.files);
      const exec = await this.run(lease, verifier.command, {
        phase: "verifier",
        timeoutSeconds: verifier.timeoutSeconds,
        env: verifier.env,
      });
      const host = mkdtempSync(path.join(tmpdir(), "ocrl-verifier-"));
      try {
        const copied = await this.cli(["cp", `${lease.container}:/logs/verifier/.`, host], CONTROL_TIMEOUT_MS);
        const read = copied.exitCode === 0 ? await readReward(host) : null;
        await this.must(["exec", lease.container, "rm", "-rf", "/tests"]);
        lease.info.state = "evaluated";
        lease.dirty = true;
        if (!read)
          return { reward: null, rewardFile: null, error: `cannot copy /logs/verifier: ${copied.stderr.trim()}`, exec };
        return { reward: read.reward, rewardFile: read.file, error: read.error, exec };
      } finally {
        rmSync(host, { recursive: true, force: true });
      }
    });
  }

  heartbeat(leaseId: string): LeaseInfo {
    return this.leases.heartbeat(leaseId);
  }

  get(leaseId: string): LeaseInfo {
    return this.leases.snapshot(leaseId);
  }

  list(): LeaseInfo[] {
    return this.leases.snapshots();
  }

  async close(leaseId: string): Promise<void> {
    // Removing the container kills a command still running in it, which frees the queue.
    await this.leases.close(leaseId, (lease) => this.cli(["rm", "--force", lease.container], CONTROL_TIMEOUT_MS));
  }

  reapIdle(idleMs: number, now = Date.now()): Promise<string[]> {
    return this.leases.reapIdle(idleMs, now, (id) => this.close(id));
  }

  /** Pulls or builds once per image and process; a present image (`image inspect`) is used as it is. */
  private ensureImage(image: ContainerImage): Promise<string> {
    const tag = "ref" in image ? image.ref : buildTag(image.dockerfile, image.context);
    let ready = this.images.get(tag);
    if (!ready) {
      ready = (async () => {
        if ((await this.cli(["image", "inspect", tag], CONTROL_TIMEOUT_MS)).exitCode === 0) return;
        if ("ref" in image) return void (await this.must(["pull", image.ref], IMAGE_TIMEOUT_MS));
        const dir = mkdtempSync(path.join(tmpdir(), "ocrl-build-"));
        try {
          for (const f of image.context) {
            mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
            writeFileSync(path.join(dir, f.path), fileBytes(f), { mode: f.executable ? 0o755 : 0o644 });
          }
          writeFileSync(path.join(dir, "Dockerfile"), image.dockerfile);
          await this.must(["build", "--tag", tag, "--file", path.join(dir, "Dockerfile"), dir], IMAGE_TIMEOUT_MS);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      })();
      // A failed build or pull is tried again next time.
      ready.catch(() => this.images.delete(tag));
      this.images.set(tag, ready);
    }
    return ready.then(() => tag);
  }

  private async start(container: string, image: string, limits: SandboxLimits): Promise<void> {
    await this.must(runArgs(container, image, limits));
    await this.must(["exec", container, "mkdir", "-p", CONTAINER_WORK_DIR]);
  }

  /** Streams each file into the container with `exec -i … sh -c 'cat > …'` (no tar, no host folder). */
  private async writeFiles(lease: Lease, base: string, files: SandboxFile[]): Promise<void> {
    for (const f of files) {
      const target = path.posix.join(base, f.path);
      const script = 'mkdir -p "$(dirname "$1")" && cat > "$1" && chmod "$2" "$1"';
      await this.must(
        ["exec", "--interactive", lease.container, "sh", "-c", script, "sh", target, f.executable ? "755" : "644"],
        CONTROL_TIMEOUT_MS,
        fileBytes(f),
      );
    }
  }

  private async run(lease: Lease, command: string, opts: ExecOptions): Promise<ExecResult> {
    const limits = lease.info.limits;
    const phase = opts.phase ?? "agent";
    const seconds =
      phase === "agent"
        ? Math.min(opts.timeoutSeconds ?? limits.wallSeconds, limits.wallSeconds)
        : (opts.timeoutSeconds ?? limits.wallSeconds);
    const env = Object.entries(opts.env ?? {}).flatMap(([k, v]) => ["--env", `${k}=${v}`]);
    const startedAt = new Date().toISOString();
    const r = await this.cli(
      ["exec", "--workdir", CONTAINER_WORK_DIR, ...env, lease.container, "bash", "-c", command],
      seconds * 1000,
      undefined,
      limits.outputBytes,
    );
    // Killing the `exec` client leaves the command running in the container: restart it now, which kills
    // everything in it and keeps its files, before the next command may start.
    if (r.timedOut) await this.must(["restart", "--time", "0", lease.container]);
    const { durationMs, ...rest } = r;
    const exec: ExecResult = { phase, command, startedAt, durationMs, ...rest };
    lease.info.commands.push(exec);
    return exec;
  }

  private async must(args: string[], timeoutMs = CONTROL_TIMEOUT_MS, stdin?: Buffer): Promise<CliResult> {
    const r = await this.cli(args, timeoutMs, stdin);
    if (r.exitCode !== 0)
      throw new LeaseError(
        "unavailable",
        `${path.basename(this.runtimePath ?? "runtime")} ${args.slice(0, 2).join(" ")} failed: ${(r.stderr || r.stdout).trim().slice(0, 500)}`,
      );
    return r;
  }

  private cli(args: string[], timeoutMs: number, stdin?: Buffer, outputBytes = 64 * 1024): Promise<CliResult> {
    const started = Date.now();
    const stdout = new CappedOutput(outputBytes);
    const stderr = new CappedOutput(outputBytes);
    return new Promise((resolve, reject) => {
      const child = spawn(this.runtimePath!, args, { stdio: [stdin ? "pipe" : "ignore", "pipe", "pipe"] });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, timeoutMs);
      child.stdout!.on("data", (c: Buffer) => stdout.push(c));
      child.stderr!.on("data", (c: Buffer) => stderr.push(c));
      if (stdin) child.stdin!.end(stdin);
      child.on("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        resolve({
          exitCode: timedOut ? null : code,
          signal,
          timedOut,
          stdout: stdout.text(),
          stderr: stderr.text(),
          stdoutBytes: stdout.total,
          stderrBytes: stderr.total,
          truncated: stdout.truncated || stderr.truncated,
          durationMs: Date.now() - started,
        });
      });
    });
  }
}
