// `npm start` as root on a fresh machine, each launcher run inside its own network namespace (only a
// loopback: no Postgres or Redis of this machine answers) and mount namespace (to hide or move files for
// that run only):
// - from a project folder that other users cannot enter (mode 700): the embedded Postgres, which runs as
//   the postgres user, must still start, with its cluster and binaries where that user can reach them;
// - with `redis-server` not installed (a bind mount of /dev/null over it): `npm start` installs it with the
//   OS package manager (a stand-in here), and with NO_AUTO_INSTALL=1 stops with the instructions instead.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { processesWithDataDir } from "../helpers/processes";

const repo = path.resolve(import.meta.dirname, "../..");
const redisServer = spawnSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).stdout.trim();

function whyNot(): string | null {
  if (process.getuid?.() !== 0)
    return "needs root (Postgres then runs as the postgres user; mount and network namespaces)";
  if (spawnSync("unshare", ["--mount", "--net", "true"]).status !== 0)
    return "`unshare --mount --net` is not permitted here";
  if (spawnSync("ip", ["-V"]).status !== 0) return "needs `ip` (iproute2) to bring up the namespace's loopback";
  if (!redisServer) return "needs a redis-server binary to play the package the installer installs";
  return null;
}
const skipReason = whyNot();
if (skipReason) console.log(`[startupAsRoot.test] skipped: ${skipReason}`);

const scratch: string[] = [];
afterAll(() => scratch.forEach((p) => rmSync(p, { recursive: true, force: true })));
function tempDir(prefix: string, mode = 0o755): string {
  const d = mkdtempSync(path.join(tmpdir(), prefix));
  chmodSync(d, mode);
  scratch.push(d);
  return d;
}

const port = () => 20000 + Math.floor(Math.random() * 20000);

/** The launcher started by `script` (sh, run as the namespaces' first process), with its output collected. */
class Launch {
  output = "";
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(script: string, env: Record<string, string>) {
    const clean: NodeJS.ProcessEnv = { ...process.env, ...env };
    // Nothing of the test runner's database, Redis or secret leaks in.
    for (const k of [
      "DATABASE_URL",
      "REDIS_URL",
      "SECRET_KEY",
      "NODE_ENV",
      "REDIS_PREFIX",
      "PROBE_POSTGRES_URL",
      "PROBE_REDIS_URL",
      "NO_AUTO_INSTALL",
    ])
      if (!(k in env)) delete clean[k];
    const setup = "set -e; ip link set lo up; ";
    this.child = spawn("unshare", ["--mount", "--propagation", "private", "--net", "--", "sh", "-c", setup + script], {
      cwd: repo,
      env: clean,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child.stdout!.on("data", (d) => (this.output += d));
    this.child.stderr!.on("data", (d) => (this.output += d));
    this.exited = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
  }

  /** Resolves once the output matches, or the launcher has exited (the caller's expectations then fail with the output). */
  async until(re: RegExp): Promise<void> {
    let done = false;
    void this.exited.then(() => (done = true));
    while (!re.test(this.output) && !done) await new Promise((r) => setTimeout(r, 100));
  }

  /** Ctrl-C, as a terminal would deliver it to `npm start` (the sh above has exec'd into node). */
  async interrupt(): Promise<number | null> {
    this.child.kill("SIGINT");
    return this.exited;
  }
}

async function noneLeft(dataDir: string): Promise<number[]> {
  // The launcher has exited; its children may still be being reaped by the kernel.
  for (let i = 0; i < 100 && processesWithDataDir(dataDir).length; i++) await new Promise((r) => setTimeout(r, 100));
  return processesWithDataDir(dataDir);
}

describe.skipIf(!!skipReason)("npm start as root on a fresh machine", () => {
  it("from a mode-700 project folder: the embedded Postgres gets a cluster and binaries the postgres user can reach, and keeps using them", async () => {
    // The repository itself, seen at <700 dir>/app (a bind mount), so node_modules is out of the postgres user's reach too.
    const locked = tempDir("ocrl-root700-", 0o700);
    const app = path.join(locked, "app");
    mkdirSync(app);
    const dataDir = path.join(locked, "data");
    const pgHome = path.join(tempDir("ocrl-pghome-parent-"), "home"); // created by npm start
    const env = {
      DATA_DIR: dataDir,
      EMBEDDED_PG_HOME: pgHome,
      EMBEDDED_PG_PORT: String(port()),
      SPAWNED_REDIS_PORT: String(port()),
    };
    const script = `mount --bind "${repo}" "${app}"; cd "${app}"; exec "${process.execPath}" scripts/start.mjs`;

    const first = new Launch(script, env);
    // Stopped once Postgres and Redis are up and the database exists (before the seed and the web build,
    // which would build into this repository's shared .next through the bind mount).
    await first.until(/redis: spawned/);
    expect(first.output, first.output).toMatch(/database: embedded/);
    expect(await first.interrupt(), first.output).toBe(0);
    expect(first.output).toMatch(/\[start\] stopped/);
    expect(await noneLeft(dataDir)).toEqual([]);

    const [cluster, ...more] = readdirSync(pgHome).filter((e) => /^cluster-[0-9a-f]+$/.test(e));
    expect(more).toEqual([]);
    const clusterDir = path.join(pgHome, cluster!);
    expect(lstatSync(path.join(dataDir, "pg")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path.join(dataDir, "pg"))).toBe(clusterDir);
    const postgresUid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout);
    expect(statSync(clusterDir).uid).toBe(postgresUid);
    expect(statSync(clusterDir).mode & 0o777).toBe(0o700);
    expect(existsSync(path.join(clusterDir, "PG_VERSION"))).toBe(true);
    expect(readFileSync(`${clusterDir}.source`, "utf8").trim()).toBe(dataDir);
    expect(statSync(pgHome).mode & 0o777).toBe(0o755);
    const [bins] = readdirSync(pgHome).filter((e) => e.startsWith("postgres-"));
    expect(statSync(path.join(pgHome, bins!, "bin", "postgres")).mode & 0o777).toBe(0o755);
    expect(first.output).toContain(
      `embedded PostgreSQL data: ${clusterDir} (linked from ${dataDir}/pg: the 'postgres' user cannot enter ${locked})`,
    );
    expect(first.output).toContain(`embedded PostgreSQL binaries: copied to ${path.join(pgHome, bins!)}`);

    // A second start finds the same cluster through DATA_DIR/pg and initialises nothing new.
    const second = new Launch(script, env);
    await second.until(/redis: spawned/);
    expect(second.output, second.output).toMatch(/database: embedded/);
    expect(second.output).toContain(`embedded PostgreSQL data: ${clusterDir} `);
    expect(await second.interrupt(), second.output).toBe(0);
    expect(second.output).toMatch(/\[start\] stopped/);
    expect(readdirSync(pgHome).filter((e) => e.startsWith("cluster-") && !e.endsWith(".source"))).toEqual([cluster]);
    expect(await noneLeft(dataDir)).toEqual([]);
  }, 240_000);

  // The OS installer's stand-in: Debian's apt-get as `npm start` uses it. Exit status 0 on success and 100 on
  // any error, as in Debian/apt @56b4c513df0b8ddaf8a17530ea58125017eb899f, apt-private/private-cmndline.cc
  // (DispatchCommandLine). "Installing" redis-server undoes the mount that hides this machine's
  // /usr/bin/redis-server, which is the file Debian's redis-server package installs (`dpkg -S` names it).
  function standInAptGet(): { binDir: string; calls: () => string[] } {
    const binDir = tempDir("ocrl-standin-");
    const log = path.join(binDir, "calls.log");
    writeFileSync(log, "");
    writeFileSync(
      path.join(binDir, "apt-get"),
      [
        "#!/bin/sh",
        `echo "DEBIAN_FRONTEND=$DEBIAN_FRONTEND apt-get $*" >> "${log}"`,
        'case "$*" in',
        "  update) exit 0 ;;",
        `  "install -y redis-server") umount "${redisServer}" && exit 0 ;;`,
        "esac",
        "echo 'E: stand-in apt-get: unexpected arguments' >&2",
        "exit 100",
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    return { binDir, calls: () => readFileSync(log, "utf8").split("\n").filter(Boolean) };
  }

  function machineWithoutRedis(noAutoInstall?: string) {
    const dataDir = tempDir("ocrl-noredis-");
    const installer = standInAptGet();
    const env: Record<string, string> = {
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(port()),
      SPAWNED_REDIS_PORT: String(port()),
      PATH: `${installer.binDir}:${process.env.PATH}`,
      ...(noAutoInstall ? { NO_AUTO_INSTALL: noAutoInstall } : {}),
    };
    // The mount hides redis-server's target (it may be a symlink), which is what the stand-in reveals again.
    const script =
      `mount --bind /dev/null "${realpathSync(redisServer)}"; ` +
      `if redis-server --version >/dev/null 2>&1; then echo "redis-server is still runnable" >&2; exit 3; fi; ` +
      `exec "${process.execPath}" scripts/start.mjs`;
    return { dataDir, installer, launch: new Launch(script, env) };
  }

  it("without redis-server: installs it with the package manager, says so and how to opt out, and runs it", async () => {
    const { dataDir, installer, launch } = machineWithoutRedis();
    await launch.until(/redis: spawned/);
    expect(launch.output, launch.output).toContain(
      "Redis is not installed: installing it with `apt-get update && apt-get install -y redis-server` (set NO_AUTO_INSTALL=1 to skip this and install it yourself)",
    );
    expect(launch.output).toContain("Redis installed");
    expect(launch.output).toMatch(/redis: spawned \(redis:\/\/127\.0\.0\.1:\d+\)/);
    expect(installer.calls()).toEqual([
      "DEBIAN_FRONTEND=noninteractive apt-get update",
      "DEBIAN_FRONTEND=noninteractive apt-get install -y redis-server",
    ]);
    expect(await launch.interrupt(), launch.output).toBe(0);
    expect(launch.output).toMatch(/\[start\] stopped/);
    expect(await noneLeft(dataDir)).toEqual([]);
  }, 120_000);

  it("without redis-server and with NO_AUTO_INSTALL=1: stops with the install instructions, runs no installer, leaves no process", async () => {
    const { dataDir, installer, launch } = machineWithoutRedis("1");
    expect(await launch.exited, launch.output).toBe(1);
    expect(launch.output).toContain("Redis is required and none was found:");
    expect(launch.output).toContain("Debian/Ubuntu: sudo apt-get install -y redis-server");
    expect(launch.output).toContain(
      "(NO_AUTO_INSTALL is set, so `apt-get update && apt-get install -y redis-server` was not run for you.)",
    );
    expect(installer.calls()).toEqual([]);
    // The embedded Postgres had started first; the failed start stopped it.
    expect(launch.output).toMatch(/embedded PostgreSQL data:/);
    expect(await noneLeft(dataDir)).toEqual([]);
  }, 120_000);
});
