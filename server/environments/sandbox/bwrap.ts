// The default provider, `local-bwrap`: every command runs in a fresh bubblewrap sandbox (new user, pid,
// network, mount, ipc and uts namespaces; no network at all), over a read-only view of the host's /usr and
// a few /etc files, with the lease's workspace bound writable at /app and a private /tmp. Limits are rlimits
// set by prlimit(1) before bwrap starts; the wall clock is ours: at the timeout the whole process group is
// killed, and the pid namespace takes every descendant with it.
//
// As root, each lease runs as a uid of its own (uids.ts). That makes RLIMIT_NPROC count this lease's
// processes only (as root it would count every root process on the host, and root ignores it anyway), and
// lets close() prove nothing is left: no process of that uid. As a normal user every lease shares the
// user's uid, so the pids limit counts all of that user's processes; `available()` says which mode runs.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, lstatSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { settings } from "../../platform/env";
import { fileBytes, type SandboxFile } from "./files";
import type { SandboxLimits } from "./limits";
import { CappedOutput } from "./output";
import { LeaseTable, snapshotLease } from "./leaseTable";
import { which } from "./which";
import { killUid, pidsOfUid } from "./processes";
import {
  assertState,
  LeaseError,
  type AllocateOptions,
  type Availability,
  type EvaluationResult,
  type ExecOptions,
  type ExecResult,
  type LeaseInfo,
  type SandboxProvider,
  type VerifierSpec,
} from "./provider";
import { readReward } from "./reward";
import { UidPool } from "./uids";

export const WORK_DIR = "/app";
/** prlimit and bwrap get no environment of ours (bwrap --clearenv empties the command's anyway). */
const NO_ENV = {} as NodeJS.ProcessEnv;
const MiB = 1024 * 1024;
/** bwrap's own two processes (the outer monitor and the namespace's init) run as the lease's uid too. */
const BWRAP_PROCESSES = 2;
/** System folders that are links on merged-/usr hosts (then recreated as links) and folders elsewhere. */
const TOP_LEVEL = ["bin", "sbin", "lib", "lib64", "lib32"];
/** The /etc files programs need to start (dynamic linker cache, alternatives links, time zone). */
const ETC = ["/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime"];

export interface LocalBwrapOptions {
  /** Holds one folder per lease; must be reachable (searchable) by the lease uids. */
  root: string;
  bwrap: string;
  uidBase: number;
  uidCount: number;
}

export function localBwrapOptions(): LocalBwrapOptions {
  const s = settings("sandbox");
  return {
    root: s.SANDBOX_ROOT ?? path.join(tmpdir(), "ocrl-sandboxes"),
    bwrap: s.SANDBOX_BWRAP,
    uidBase: s.SANDBOX_UID_BASE,
    uidCount: s.SANDBOX_UID_COUNT,
  };
}

interface Lease {
  info: LeaseInfo & { commands: ExecResult[] };
  uid: number;
  dir: string;
  /** Serialises operations on one lease, as upstream's per-run lock does. */
  queue: Promise<unknown>;
  /** The process group of the command running now, so close() can kill it. */
  running: number | null;
  /**
   * Nothing of the lease's uid can be running: true from allocation (a claimed uid's previous lease ended with
   * none of its processes left, or the claim killed them) and again once a command's processes were waited out,
   * false from a spawn on. Only our spawns run as a lease uid, so a quiet lease's reset and close skip the
   * /proc scans (killUid), the bulk of their cost on a busy host.
   */
  quiet: boolean;
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

export class LocalBwrapProvider implements SandboxProvider {
  readonly name = "local-bwrap";
  private readonly leases = new LeaseTable<Lease>();
  private readonly uids: UidPool | null;
  private availability: Availability | null = null;

  constructor(private readonly opts: LocalBwrapOptions = localBwrapOptions()) {
    mkdirSync(opts.root, { recursive: true, mode: 0o711 });
    // Lease uids must pass through it to their own folders (and see nothing else: no read bit).
    chmodSync(opts.root, 0o711);
    this.uids = isRoot() ? new UidPool(opts.root, opts.uidBase, opts.uidCount) : null;
  }

  async available(): Promise<Availability> {
    if (this.availability) return this.availability;
    const bwrap = which(this.opts.bwrap);
    const prlimit = which("prlimit");
    if (!bwrap) return (this.availability = { ok: false, reason: `${this.opts.bwrap} not found: install bubblewrap` });
    if (!prlimit) return (this.availability = { ok: false, reason: "prlimit not found: install util-linux" });
    // A real trial: user namespaces can be off (kernel.unprivileged_userns_clone=0, AppArmor, a container
    // without CAP_SYS_ADMIN), and the root folder must be reachable as the sandbox uid.
    const uid = this.uids ? await this.uids.claim() : (process.getuid?.() ?? 0);
    try {
      const probe = spawnSync(
        prlimit,
        ["--", bwrap, ...this.bwrapArgs(null, [{ at: "/probe", host: this.opts.root }], null), "--", "/bin/true"],
        {
          uid,
          gid: uid,
          env: NO_ENV,
          timeout: 10_000,
          encoding: "utf8",
        },
      );
      if (probe.status !== 0) {
        const why = (probe.stderr || probe.error?.message || `exit ${probe.status ?? probe.signal}`).trim();
        return (this.availability = { ok: false, reason: `bubblewrap cannot start a sandbox here: ${why}` });
      }
    } finally {
      if (this.uids) this.uids.release(uid);
    }
    return (this.availability = {
      ok: true,
      detail: this.uids ? "one uid per lease (root)" : "shared uid: the pids limit counts all of this user's processes",
    });
  }

  async allocate(opts: AllocateOptions): Promise<LeaseInfo> {
    if (opts.network !== "none") throw new LeaseError("unsupported", `local-bwrap supports network policy "none" only`);
    const ok = await this.available();
    if (!ok.ok) throw new LeaseError("unavailable", ok.reason);
    const uid = this.uids ? await this.uids.claim() : (process.getuid?.() ?? 0);
    const id = `sbx-${randomBytes(8).toString("hex")}`;
    const dir = path.join(this.opts.root, id);
    try {
      mkdirSync(dir, { mode: 0o711 });
      this.makeOwnedDir(path.join(dir, "app"), uid);
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      this.uids?.release(uid);
      throw e;
    }
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
        workDir: WORK_DIR,
        commands: [],
      },
      uid,
      dir,
      queue: Promise.resolve(),
      running: null,
      quiet: true,
    };
    this.leases.set(id, lease);
    return snapshotLease(lease);
  }

  reset(leaseId: string, files: SandboxFile[]): Promise<LeaseInfo> {
    return this.leases.serial(leaseId, async (lease) => {
      assertState(lease.info, "reset");
      await this.quieten(lease);
      const app = path.join(lease.dir, "app");
      rmSync(app, { recursive: true, force: true });
      this.makeOwnedDir(app, lease.uid);
      this.writeFiles(app, files, lease.uid);
      lease.info.state = "ready";
      return snapshotLease(lease);
    });
  }

  exec(leaseId: string, command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    return this.leases.serial(leaseId, async (lease) => {
      assertState(lease.info, "exec");
      return this.run(lease, command, opts, null);
    });
  }

  evaluate(leaseId: string, verifier: VerifierSpec): Promise<EvaluationResult> {
    return this.leases.serial(leaseId, async (lease) => {
      assertState(lease.info, "evaluate");
      // Fresh logs, so nothing the agent did can plant a reward.
      const logs = path.join(lease.dir, "logs");
      rmSync(logs, { recursive: true, force: true });
      this.makeOwnedDir(logs, lease.uid);
      this.makeOwnedDir(path.join(logs, "verifier"), lease.uid);
      this.makeOwnedDir(path.join(logs, "agent"), lease.uid);
      const exec = await this.run(
        lease,
        verifier.command,
        {
          phase: "verifier",
          timeoutSeconds: verifier.timeoutSeconds,
          env: verifier.env,
          readOnly: [{ at: "/tests", files: verifier.files }],
        },
        logs,
      );
      const read = await readReward(path.join(logs, "verifier"));
      lease.info.state = "evaluated";
      return { reward: read.reward, rewardFile: read.file, error: read.error, exec };
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
    await this.leases.close(
      leaseId,
      // Kill first: a command still running would otherwise hold the queue until its own timeout.
      (lease) => this.kill(lease),
      async (lease) => {
        await this.quieten(lease);
        rmSync(lease.dir, { recursive: true, force: true });
        this.uids?.release(lease.uid);
      },
    );
  }

  reapIdle(idleMs: number, now = Date.now()): Promise<string[]> {
    return this.leases.reapIdle(idleMs, now, (id) => this.close(id));
  }

  /** The host folder behind a lease (tests inspect it; nothing else should). */
  hostDir(leaseId: string): string {
    return this.leases.require(leaseId).dir;
  }

  uidOf(leaseId: string): number {
    return this.leases.require(leaseId).uid;
  }

  /** As root: no process of the lease's uid is left (unless none can be: a quiet lease). */
  private async quieten(lease: Lease): Promise<void> {
    if (!this.uids || lease.quiet) return;
    await killUid(lease.uid);
    lease.quiet = lease.running === null;
  }

  private makeOwnedDir(dir: string, uid: number): void {
    mkdirSync(dir, { mode: 0o755 });
    if (this.uids) chownSync(dir, uid, uid);
  }

  /** Writes validated relative paths under a folder we just created empty (so no link can redirect them). */
  private writeFiles(base: string, files: SandboxFile[], uid: number | null): void {
    for (const f of files) {
      const target = path.join(base, f.path);
      if (!target.startsWith(base + path.sep)) throw new Error(`file path ${f.path} leaves its folder`);
      let dir = base;
      for (const seg of path.relative(base, path.dirname(target)).split(path.sep).filter(Boolean)) {
        dir = path.join(dir, seg);
        try {
          if (!lstatSync(dir).isDirectory()) throw new Error(`file path ${f.path}: ${seg} is a file`);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
          mkdirSync(dir, { mode: 0o755 });
          if (uid !== null && this.uids) chownSync(dir, uid, uid);
        }
      }
      writeFileSync(target, fileBytes(f), { mode: f.executable ? 0o755 : 0o644, flag: "wx" });
      if (uid !== null && this.uids) chownSync(target, uid, uid);
    }
  }

  private bwrapArgs(lease: Lease | null, readOnly: { at: string; host: string }[], logs: string | null): string[] {
    const limits = lease?.info.limits;
    const args = ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session"];
    args.push("--clearenv", "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp");
    args.push("--setenv", "LANG", "C.UTF-8", "--setenv", "TERM", "dumb");
    args.push("--ro-bind", "/usr", "/usr");
    for (const name of TOP_LEVEL) {
      const host = `/${name}`;
      let st;
      try {
        st = lstatSync(host);
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) args.push("--symlink", `usr/${name}`, host);
      else args.push("--ro-bind", host, host);
    }
    for (const f of ETC) args.push("--ro-bind-try", f, f);
    args.push("--proc", "/proc", "--dev", "/dev");
    args.push("--size", String((limits?.tmpMb ?? 16) * MiB), "--tmpfs", "/tmp");
    if (lease) args.push("--bind", path.join(lease.dir, "app"), WORK_DIR, "--chdir", WORK_DIR);
    for (const ro of readOnly) args.push("--ro-bind", ro.host, ro.at);
    if (logs) args.push("--bind", logs, "/logs");
    args.push("--remount-ro", "/");
    return args;
  }

  private prlimitArgs(limits: SandboxLimits): string[] {
    return [
      `--cpu=${limits.cpuSeconds}`,
      `--as=${limits.memoryMb * MiB}`,
      `--nproc=${limits.pids + BWRAP_PROCESSES}`,
      `--fsize=${limits.fileSizeMb * MiB}`,
      "--core=0",
      "--nofile=1024",
    ];
  }

  private async run(lease: Lease, command: string, opts: ExecOptions, logs: string | null): Promise<ExecResult> {
    const limits = lease.info.limits;
    const staged: { at: string; host: string }[] = [];
    const stageRoot = path.join(lease.dir, "ro");
    rmSync(stageRoot, { recursive: true, force: true });
    try {
      if (opts.readOnly?.length) {
        mkdirSync(stageRoot, { mode: 0o711 });
        for (const [i, ro] of opts.readOnly.entries()) {
          const host = path.join(stageRoot, String(i));
          mkdirSync(host, { mode: 0o755 });
          this.writeFiles(host, ro.files, null);
          staged.push({ at: ro.at, host });
        }
      }
      const envArgs = Object.entries(opts.env ?? {}).flatMap(([k, v]) => ["--setenv", k, v]);
      // After the root went read-only, new mount points can only be made in the private /tmp.
      const socketArgs = [
        ...(opts.sockets ?? []).flatMap((sock) => ["--bind", sock.host, sock.at]),
        ...(opts.hostReadOnly ?? []).flatMap((ro) => ["--ro-bind", ro.host, ro.at]),
      ];
      const args = [
        ...this.prlimitArgs(limits),
        "--",
        which(this.opts.bwrap)!,
        ...this.bwrapArgs(lease, staged, logs),
        ...envArgs,
        ...socketArgs,
        "--",
        "/bin/bash",
        "-c",
        command,
      ];
      // The agent's commands never outlast the lease's limit; a verifier or oracle has the task's own timeout.
      const phase = opts.phase ?? "agent";
      const seconds =
        phase === "agent"
          ? Math.min(opts.timeoutSeconds ?? limits.wallSeconds, limits.wallSeconds)
          : (opts.timeoutSeconds ?? limits.wallSeconds);
      const wallMs = seconds * 1000;
      const result = await this.spawnCapped(lease, args, wallMs, limits.outputBytes);
      // The pid namespace dies with bwrap, but its processes are reaped a moment later: wait them out, so a
      // command's end means nothing of it runs (and the next command's pids limit starts from zero).
      await this.quieten(lease);
      const exec: ExecResult = { phase, command, ...result };
      lease.info.commands.push(exec);
      return exec;
    } finally {
      rmSync(stageRoot, { recursive: true, force: true });
    }
  }

  private spawnCapped(
    lease: Lease,
    args: string[],
    wallMs: number,
    outputBytes: number,
  ): Promise<Omit<ExecResult, "phase" | "command">> {
    const started = Date.now();
    const stdout = new CappedOutput(outputBytes);
    const stderr = new CappedOutput(outputBytes);
    lease.quiet = false;
    return new Promise((resolve, reject) => {
      const child = spawn(which("prlimit")!, args, {
        uid: lease.uid,
        gid: lease.uid,
        env: NO_ENV,
        cwd: "/",
        // Its own process group, so the timeout can kill the group, not just bwrap.
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      lease.running = child.pid ?? null;
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        this.kill(lease);
      }, wallMs);
      child.stdout.on("data", (c: Buffer) => stdout.push(c));
      child.stderr.on("data", (c: Buffer) => stderr.push(c));
      child.on("error", (e) => {
        clearTimeout(timer);
        lease.running = null;
        reject(e);
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        lease.running = null;
        resolve({
          startedAt: new Date(started).toISOString(),
          durationMs: Date.now() - started,
          exitCode: code,
          signal,
          timedOut,
          stdout: stdout.text(),
          stderr: stderr.text(),
          stdoutBytes: stdout.total,
          stderrBytes: stderr.total,
          truncated: stdout.truncated || stderr.truncated,
        });
      });
    });
  }

  /**
   * Kills the running command. As root: every process of the lease's uid but the outer bwrap, whose child is
   * the pid namespace's init — its death takes the namespace with it, and bwrap reaps it and exits (killing
   * bwrap first would orphan the init to the host's pid 1). As a normal user, and as a fallback when bwrap
   * has not exited a few seconds later: the whole process group.
   */
  private kill(lease: Lease): void {
    const outer = lease.running;
    if (this.uids && !lease.quiet) {
      for (const pid of pidsOfUid(lease.uid)) {
        if (pid === outer) continue;
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
    if (outer === null) return;
    const group = () => {
      if (lease.running !== outer) return;
      try {
        process.kill(-outer, "SIGKILL");
      } catch {
        // already gone
      }
    };
    if (this.uids) setTimeout(group, 5000).unref();
    else group();
  }
}
