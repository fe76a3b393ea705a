// Real users, keys, experiments and runs in the test database: users and keys created through the same
// services the product uses, experiments through the service or as seeded rows (see makeExperiment).
import { randomBytes } from "node:crypto";
import { db, type Prisma } from "../../server/platform/db/client";
import { createUser } from "../../server/users/service";
import { createApiKey } from "../../server/apiKeys/service";
import {
  ExperimentConfigSchema,
  type ExperimentConfig,
  type ExperimentConfigInput,
} from "../../server/config/experimentConfig";
import { createExperiment } from "../../server/experiments/service";
import type { Principal, Scope } from "../../server/access/principal";

export const uniq = (p = "t") => `${p}-${randomBytes(4).toString("hex")}`;

export async function makeUser(role: "ADMIN" | "REVIEWER" | "VIEWER") {
  const email = `${uniq(role.toLowerCase())}@example.test`;
  const password = `pw-${randomBytes(6).toString("hex")}`;
  const user = await createUser(null, { email, password, role });
  return { ...user, password };
}

export async function makeKey(scopes: Scope[], experimentId?: string) {
  const k = await createApiKey(null, { name: uniq("key"), scopes, experimentId });
  return k.key;
}

export async function login(baseUrl: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  const cookie = res.headers.get("set-cookie") ?? "";
  return cookie.split(";")[0]!;
}

export function api(baseUrl: string, auth: { bearer?: string; cookie?: string } = {}) {
  return async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
    if (auth.cookie) {
      headers.cookie = auth.cookie;
      headers.origin = baseUrl;
    }
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return {
      status: res.status,
      body: json as Record<string, unknown> & {
        error?: { code: string; reason: string; message: string; issues: { path: string; message: string }[] };
      },
    };
  };
}

/** The principal a fixture acts as when it goes through a service: an unbound API key with every scope. */
export const ADMIN: Principal = {
  kind: "apiKey",
  keyId: "fixtures",
  prefix: "fixtures",
  scopes: ["admin"],
  experimentId: null,
  runId: null,
  createdById: null,
};

const made: string[] = [];

/**
 * An experiment with `config`. With `by`, it is created through the service, as the UI creates one (egress
 * check, sealed secrets, an audit entry); without, it is a row written straight with Prisma: seeded state for
 * tests of workers and read paths, which must not add entries to the audit log those tests read.
 */
/** The description of experiments seeded as plain rows (no audit entry), so audit invariants can leave them out. */
export const SEEDED_ROW = "seeded by a test fixture (no audit entry)";

export async function makeExperiment(
  config: ExperimentConfigInput = {},
  opts: { by?: Principal; name?: string } = {},
): Promise<{ id: string; slug: string; name: string; config: ExperimentConfig }> {
  const slug = uniq("exp");
  const name = opts.name ?? `Test ${slug}`;
  const parsed = ExperimentConfigSchema.parse(config);
  const e = opts.by
    ? await createExperiment(opts.by, { name, slug, description: "", config: parsed })
    : {
        ...(await db().experiment.create({
          data: { slug, name, description: SEEDED_ROW, config: parsed as unknown as Prisma.InputJsonValue },
          select: { id: true, slug: true, name: true },
        })),
        config: parsed,
      };
  made.push(e.id);
  return { id: e.id, slug: e.slug, name: e.name, config: e.config };
}

/**
 * Deletes the experiments this test file made (turns cascade): e.g. their fake endpoints are gone, so the
 * sweepers of workers started later in the same test run must not find deliberately unjudged turns.
 */
export async function deleteExperiments(): Promise<void> {
  await db().experiment.deleteMany({ where: { id: { in: made } } });
}

/** The experiment's next run, on the trainer backend its config names unless told otherwise. */
export async function makeRun(
  experimentId: string,
  opts: { status?: "PENDING" | "RUNNING" | "PAUSED"; trainerBackend?: string } = {},
) {
  const e = await db().experiment.findUniqueOrThrow({ where: { id: experimentId } });
  const last = await db().run.findFirst({
    where: { experimentId },
    orderBy: { number: "desc" },
    select: { number: true },
  });
  const status = opts.status ?? "RUNNING";
  return db().run.create({
    data: {
      experimentId,
      number: (last?.number ?? 0) + 1,
      config: e.config as Prisma.InputJsonValue,
      trainerBackend: opts.trainerBackend ?? ExperimentConfigSchema.parse(e.config).trainer.backend,
      status,
      startedAt: status === "PENDING" ? null : new Date(),
    },
  });
}
