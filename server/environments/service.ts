// Environment services for tRPC and REST: environments (provider, limits, network policy, tools), task sets
// (versioned imports with a fixed train/held-out split), oracle runs, and reading episodes. Callers check
// the permission (read for reads, write for the rest) at the route layer; these load-then-authorize each
// row against the caller's experiment scope, and write every mutation with its audit entry.
import type { z } from "zod";
import { audit } from "../access/audit";
import type { Principal } from "../access/principal";
import { authorizeRow, loadExperimentFor } from "../access/scope";
import { db, type Prisma } from "../platform/db/client";
import { assertEgressAllowed, EgressRefusedError } from "../platform/egress";
import { badRequest, conflict, notFound } from "../platform/errors";
import { sandboxLimitsSchema } from "./sandbox/limits";
import { sandboxProvider, type ProviderName } from "./sandbox/registry";
import { randomBytes } from "node:crypto";
import { enqueueMany } from "../platform/bus/queues";
import { assertFits } from "./episodes/runner";
import { jobIdOf } from "./episodes/jobs";
import {
  MAX_LAUNCH_EPISODES,
  type EnvironmentCreateInput,
  EnvironmentGetInput,
  EnvironmentListInput,
  environmentPoolSchema,
  type EnvironmentPool,
  type EpisodeGetInput,
  type EpisodeScreenshotInput,
  type EpisodeLaunchInput,
  type EpisodeListInput,
  type LaunchSummaryInput,
  type OracleRunInput,
  type TaskSetGetInput,
  type TaskSetImportInput,
  type TaskSetListInput,
} from "./schemas";
import { parseTasks, type TaskSource } from "./tasks/import";
import { runOracle as oracle, type OracleOutcome } from "./tasks/oracle";
import { taskSpecSchema, type TaskSpec } from "./tasks/spec";
import { splitOf } from "./tasks/split";
import { passAtK, taskPassAtK } from "./passRates";

type In<T extends z.ZodType> = z.output<T>;
type Tx = Prisma.TransactionClient;
const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Prisma.InputJsonValue;

/** Pool URLs are user-configured outbound addresses: the egress policy applies on save (and on every call). */
async function assertPoolEgress(pool: EnvironmentPool | undefined): Promise<void> {
  const issues = [];
  for (const [i, url] of (pool?.urls ?? []).entries()) {
    try {
      await assertEgressAllowed(url, undefined, { allowUnresolvable: true });
    } catch (err) {
      if (!(err instanceof EgressRefusedError)) throw err;
      issues.push({ path: `pool.urls.${i}`, message: err.message });
    }
  }
  if (issues.length) throw badRequest(`Pool address refused: ${issues.map((i) => i.message).join("; ")}`, issues);
}

export async function createEnvironment(p: Principal, input: In<typeof EnvironmentCreateInput>) {
  const e = await loadExperimentFor(p, input.experiment);
  await assertPoolEgress(input.pool);
  return db().$transaction(async (tx) => {
    const taken = await tx.environment.findUnique({
      where: { experimentId_name: { experimentId: e.id, name: input.name } },
    });
    if (taken) throw conflict(`Environment "${input.name}" already exists in this experiment`);
    const env = await tx.environment.create({
      data: {
        experimentId: e.id,
        name: input.name,
        provider: input.provider,
        limits: json(input.limits),
        network: input.network,
        tools: json(input.tools),
        pool: input.pool ? json(input.pool) : undefined,
        harness: input.harness ? json(input.harness) : undefined,
      },
    });
    await audit(tx, p, "environment.create", "environment", env.id, null, env);
    return env;
  });
}

export async function listEnvironments(p: Principal, input: In<typeof EnvironmentListInput>) {
  const e = await loadExperimentFor(p, input.experiment);
  return db().environment.findMany({ where: { experimentId: e.id }, orderBy: { createdAt: "asc" } });
}

export async function getEnvironment(p: Principal, input: In<typeof EnvironmentGetInput>) {
  const env = authorizeRow(
    p,
    "Environment",
    input.id,
    await db().environment.findUnique({ where: { id: input.id } }),
    (r) => r.experimentId,
  );
  const byStatus = await db().episode.groupBy({
    by: ["status"],
    where: { environmentId: env.id },
    _count: { _all: true },
  });
  const episodes = { QUEUED: 0, RUNNING: 0, DONE: 0, FAILED: 0 };
  for (const r of byStatus) episodes[r.status] = r._count._all;
  // A running episode holds its lease from allocate until it ends (the runners close it then).
  const activeLeases = await db().episode.count({
    where: { environmentId: env.id, status: "RUNNING", leaseId: { not: null } },
  });
  return {
    ...env,
    health: await environmentHealth(env),
    episodes,
    activeLeases,
    recent: await recentStats(env.id),
  };
}

/** A local sandbox's own check; a remote pool is asked at allocate (a pool that is down is skipped then). */
async function environmentHealth(env: { provider: string; pool: Prisma.JsonValue }) {
  if (env.provider !== "remote-pool") return sandboxProvider(env.provider as ProviderName).available();
  const pool = environmentPoolSchema.parse(env.pool);
  return { ok: true as const, detail: `${pool.protocol} pool(s): ${pool.urls.join(", ")} (reached at allocate)` };
}

/** Nearest-rank percentile of a sorted list; null when empty. */
const percentile = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! : null;

/**
 * Run health over an environment's latest ended episodes: how many failed, how many were truncated, how long
 * sandbox commands took (p50/p95), the share of episode time spent waiting on them, and how long the sandbox or
 * pool took to allocate a lease and to evaluate it (p50/p95 over the episodes that got that far).
 */
async function recentStats(environmentId: string, take = 200) {
  const rows = await db().episode.findMany({
    where: { environmentId, status: { in: ["DONE", "FAILED"] } },
    orderBy: { finishedAt: "desc" },
    take,
    select: {
      status: true,
      truncation: true,
      startedAt: true,
      finishedAt: true,
      allocateMs: true,
      evaluateMs: true,
      steps: { select: { observation: true } },
    },
  });
  const done = rows.filter((r) => r.status === "DONE");
  const execMs: number[] = [];
  let wallMs = 0;
  for (const r of rows) {
    if (r.startedAt && r.finishedAt) wallMs += r.finishedAt.getTime() - r.startedAt.getTime();
    for (const s of r.steps)
      for (const res of (s.observation as { results?: { durationMs?: number }[] }).results ?? [])
        if (typeof res.durationMs === "number") execMs.push(res.durationMs);
  }
  execMs.sort((a, b) => a - b);
  const toolMs = execMs.reduce((a, b) => a + b, 0);
  const sorted = (xs: Array<number | null>) => xs.flatMap((x) => (x === null ? [] : [x])).sort((a, b) => a - b);
  const allocateMs = sorted(rows.map((r) => r.allocateMs));
  const evaluateMs = sorted(rows.map((r) => r.evaluateMs));
  return {
    episodes: rows.length,
    failed: rows.length - done.length,
    truncationRatio: done.length ? done.filter((r) => r.truncation !== null).length / done.length : null,
    execP50Ms: percentile(execMs, 0.5),
    execP95Ms: percentile(execMs, 0.95),
    toolWaitShare: wallMs > 0 ? Math.min(1, toolMs / wallMs) : null,
    allocateP50Ms: percentile(allocateMs, 0.5),
    allocateP95Ms: percentile(allocateMs, 0.95),
    evaluateP50Ms: percentile(evaluateMs, 0.5),
    evaluateP95Ms: percentile(evaluateMs, 0.95),
  };
}

/** Parses the upload (a 400 naming the file and field when a task is bad), then writes the next version. */
export async function importTaskSet(p: Principal, input: In<typeof TaskSetImportInput>) {
  const e = await loadExperimentFor(p, input.experiment);
  const source: TaskSource =
    input.format === "jsonl"
      ? { format: "jsonl", text: input.text ?? "" }
      : { format: "harbor", archive: Buffer.from(input.archiveBase64 ?? "", "base64"), name: "archive" };
  const tasks = parseTasks(source);
  return db().$transaction((tx) =>
    writeTaskSetVersion(tx, p, {
      experimentId: e.id,
      name: input.name,
      description: input.description,
      format: input.format,
      splitSeed: input.splitSeed,
      heldOutFraction: input.heldOutFraction,
      tasks,
    }),
  );
}

export interface TaskSetVersionData {
  experimentId: string;
  name: string;
  description?: string;
  format: "harbor" | "jsonl";
  splitSeed: number;
  heldOutFraction: number;
  tasks: TaskSpec[];
}

/** Versions never change in place: the set's row lock orders concurrent imports. */
export async function writeTaskSetVersion(tx: Tx, p: Principal | null, data: TaskSetVersionData) {
  await tx.taskSet.upsert({
    where: { experimentId_name: { experimentId: data.experimentId, name: data.name } },
    create: { experimentId: data.experimentId, name: data.name, description: data.description ?? "" },
    update: data.description !== undefined ? { description: data.description } : {},
  });
  const [set] = await tx.$queryRaw<{ id: string; latestVersion: number }[]>`
    SELECT id, "latestVersion" FROM task_sets WHERE "experimentId" = ${data.experimentId} AND name = ${data.name} FOR UPDATE`;
  const version = set!.latestVersion + 1;
  const sv = await tx.taskSetVersion.create({
    data: {
      setId: set!.id,
      version,
      format: data.format,
      splitSeed: data.splitSeed,
      heldOutFraction: data.heldOutFraction,
      taskCount: data.tasks.length,
    },
  });
  await tx.task.createMany({
    data: data.tasks.map((t, index) => ({
      setVersionId: sv.id,
      index,
      key: t.key,
      kind: t.kind,
      split: splitOf(data.splitSeed, t.key, data.heldOutFraction),
      instruction: t.instruction,
      spec: json(t),
    })),
  });
  await tx.taskSet.update({ where: { id: set!.id }, data: { latestVersion: version } });
  await audit(tx, p, "taskSet.import", "taskSet", set!.id, null, {
    version,
    format: data.format,
    taskCount: data.tasks.length,
    splitSeed: data.splitSeed,
    heldOutFraction: data.heldOutFraction,
  });
  return { id: set!.id, versionId: sv.id, version, taskCount: data.tasks.length };
}

export async function listTaskSets(p: Principal, input: In<typeof TaskSetListInput>) {
  const e = await loadExperimentFor(p, input.experiment);
  return db().taskSet.findMany({ where: { experimentId: e.id }, orderBy: { createdAt: "asc" } });
}

export async function loadVersion(p: Principal, setId: string, version?: number) {
  const set = authorizeRow(
    p,
    "Task set",
    setId,
    await db().taskSet.findUnique({ where: { id: setId } }),
    (r) => r.experimentId,
  );
  const v = version ?? set.latestVersion;
  const sv = await db().taskSetVersion.findUnique({ where: { setId_version: { setId, version: v } } });
  if (!sv) throw notFound("Task set version", `${setId} v${v}`);
  return { set, sv };
}

/** A version's tasks without their files (the list a page shows): key, kind, split, oracle status. */
export async function getTaskSet(p: Principal, input: In<typeof TaskSetGetInput>) {
  const { set, sv } = await loadVersion(p, input.id, input.version);
  const tasks = await db().task.findMany({
    where: { setVersionId: sv.id },
    orderBy: { index: "asc" },
    select: {
      id: true,
      index: true,
      key: true,
      kind: true,
      split: true,
      instruction: true,
      oracleStatus: true,
      oracleAt: true,
    },
  });
  return { ...set, version: sv, tasks };
}

/** What of an oracle run is kept on the task: statuses, rewards, errors and a trimmed command record. */
function oracleRecord(o: OracleOutcome) {
  const cut = (s: string) => (s.length > 2000 ? `${s.slice(0, 2000)}…` : s);
  return {
    status: o.status,
    solutionRewards: o.solutionRewards,
    nullReward: o.nullReward,
    errors: o.errors,
    commands: o.commands.map((c) => ({
      phase: c.phase,
      command: cut(c.command),
      exitCode: c.exitCode,
      timedOut: c.timedOut,
      truncated: c.truncated,
      durationMs: c.durationMs,
      stdout: cut(c.stdout),
      stderr: cut(c.stderr),
    })),
  };
}

/**
 * Runs every task's oracle in the environment's sandbox, one task at a time (this is a small machine), and
 * records each status on its task. Returns the statuses.
 */
export async function runOracle(p: Principal, input: In<typeof OracleRunInput>) {
  const { set, sv } = await loadVersion(p, input.taskSetId, input.version);
  const env = await db().environment.findUnique({ where: { id: input.environmentId } });
  if (!env || env.experimentId !== set.experimentId) throw notFound("Environment", input.environmentId);
  if (env.provider === "remote-pool")
    throw badRequest("Oracle runs need a local sandbox: a remote pool holds its tasks' solutions itself");
  const provider = sandboxProvider(env.provider as ProviderName);
  const limits = sandboxLimitsSchema.parse(env.limits);
  const tasks = await db().task.findMany({ where: { setVersionId: sv.id }, orderBy: { index: "asc" } });
  if (tasks.some((t) => t.kind === "terminal")) {
    const health = await provider.available();
    if (!health.ok) throw badRequest(`The ${env.provider} sandbox is unavailable: ${health.reason}`);
  }
  const results: { key: string; status: OracleOutcome["status"] }[] = [];
  for (const t of tasks) {
    const o = await oracle(provider, taskSpecSchema.parse(t.spec), limits, input.repeats);
    await db().$transaction(async (tx) => {
      await tx.task.update({
        where: { id: t.id },
        data: { oracleStatus: o.status, oracleResult: json(oracleRecord(o)), oracleAt: new Date() },
      });
      await audit(tx, p, "task.oracle", "task", t.id, { status: t.oracleStatus }, { status: o.status });
    });
    results.push({ key: t.key, status: o.status });
  }
  return { taskSetId: set.id, version: sv.version, results };
}

/**
 * Queues n episodes of each chosen task (one GRPO group per task: group key `<launchId>:<task key>`) in one
 * transaction with its audit entry, then enqueues them for workers/episodes.
 */
export async function launchEpisodes(p: Principal, input: In<typeof EpisodeLaunchInput>) {
  const { set, sv } = await loadVersion(p, input.taskSetId, input.version);
  const env = await db().environment.findUnique({ where: { id: input.environmentId } });
  if (!env || env.experimentId !== set.experimentId) throw notFound("Environment", input.environmentId);
  const tasks = await db().task.findMany({
    where: {
      setVersionId: sv.id,
      ...(input.split === "all" ? {} : { split: input.split }),
      ...(input.taskKeys ? { key: { in: input.taskKeys } } : {}),
    },
    orderBy: { index: "asc" },
  });
  if (input.taskKeys) {
    const found = new Set(tasks.map((t) => t.key));
    const missing = input.taskKeys.filter((k) => !found.has(k));
    if (missing.length)
      throw badRequest(`No task ${missing.slice(0, 5).join(", ")} in the ${input.split} split of v${sv.version}`);
  }
  if (tasks.length === 0) throw badRequest(`The ${input.split} split of ${set.name} v${sv.version} holds no task`);
  const total = tasks.length * input.n;
  if (total > MAX_LAUNCH_EPISODES)
    throw badRequest(
      `${tasks.length} tasks × ${input.n} = ${total} episodes; at most ${MAX_LAUNCH_EPISODES} per launch`,
    );
  for (const t of tasks) assertFits(env, taskSpecSchema.parse(t.spec), t.key);

  const launchId = `L${randomBytes(6).toString("hex")}`;
  const rows = tasks.flatMap((t) =>
    Array.from({ length: input.n }, (_, i) => ({
      id: `${launchId}-${t.index}-${i}`,
      experimentId: env.experimentId,
      environmentId: env.id,
      taskId: t.id,
      groupKey: `${launchId}:${t.key}`,
      sampleIndex: i,
      maxSteps: input.maxSteps,
      maxTokens: input.maxTokens ?? null,
      estimator: input.estimator,
      prm: input.prm,
    })),
  );
  await db().$transaction(async (tx) => {
    await tx.episode.createMany({ data: rows });
    await audit(tx, p, "episode.launch", "taskSet", set.id, null, {
      launchId,
      environmentId: env.id,
      version: sv.version,
      split: input.split,
      tasks: tasks.length,
      n: input.n,
      maxSteps: input.maxSteps,
      estimator: input.estimator,
      prm: input.prm,
    });
  });
  await enqueueMany(
    "episode",
    rows.map((r) => ({ payload: { episodeId: r.id, experimentId: r.experimentId }, jobId: jobIdOf(r.id, 0) })),
  );
  return { launchId, episodes: rows.length, groups: tasks.length, taskSetId: set.id, version: sv.version };
}

export async function listEpisodes(p: Principal, input: In<typeof EpisodeListInput>) {
  const e = await loadExperimentFor(p, input.experiment);
  return db().episode.findMany({
    where: {
      experimentId: e.id,
      ...(input.taskId ? { taskId: input.taskId } : {}),
      ...(input.environmentId ? { environmentId: input.environmentId } : {}),
      ...(input.launchId ? { groupKey: { startsWith: `${input.launchId}:` } } : {}),
      ...(input.status ? { status: input.status } : {}),
    },
    orderBy: { createdAt: "desc" },
    take: input.limit,
    include: { task: { select: { key: true, kind: true, split: true } } },
  });
}

export async function getEpisode(p: Principal, input: In<typeof EpisodeGetInput>) {
  return authorizeRow(
    p,
    "Episode",
    input.id,
    await db().episode.findUnique({
      where: { id: input.id },
      include: {
        steps: { orderBy: { index: "asc" } },
        task: { select: { key: true, kind: true, split: true } },
        // Which screenshots exist; the images themselves come one at a time (getEpisodeScreenshot).
        screenshots: { select: { index: true }, orderBy: { index: "asc" } },
      },
    }),
    (r) => r.experimentId,
  );
}

/** One screenshot of an episode the caller may read, as base64 PNG (the viewer shows it as a data URL). */
export async function getEpisodeScreenshot(p: Principal, input: In<typeof EpisodeScreenshotInput>) {
  const episode = authorizeRow(
    p,
    "Episode",
    input.id,
    await db().episode.findUnique({ where: { id: input.id }, select: { id: true, experimentId: true } }),
    (r) => r.experimentId,
  );
  const shot = await db().episodeScreenshot.findUnique({
    where: { episodeId_index: { episodeId: episode.id, index: input.index } },
  });
  if (!shot) throw notFound("Screenshot", `${input.id}#${input.index}`);
  return {
    episodeId: episode.id,
    index: shot.index,
    mimeType: "image/png" as const,
    base64: Buffer.from(shot.png).toString("base64"),
  };
}

/**
 * A launch's outcome: per task its attempts, passes (reward ≥ 1), pass@1 and pass@k; over the tasks, both with a
 * 95% interval; the policy versions that served its steps; failed and truncated counts. Failed episodes are not
 * attempts (they have no outcome).
 */
export async function launchSummary(p: Principal, input: In<typeof LaunchSummaryInput>) {
  const e = await loadExperimentFor(p, input.experiment);
  const episodes = await db().episode.findMany({
    where: { experimentId: e.id, groupKey: { startsWith: `${input.launchId}:` } },
    select: {
      status: true,
      outcome: true,
      truncation: true,
      task: { select: { id: true, key: true, split: true } },
      steps: { select: { turnId: true } },
    },
  });
  if (episodes.length === 0) throw notFound("Launch", input.launchId);
  const byTask = new Map<string, { key: string; split: string; n: number; c: number }>();
  for (const ep of episodes) {
    if (ep.status !== "DONE" || ep.outcome === null) continue;
    const t = byTask.get(ep.task.id) ?? { key: ep.task.key, split: ep.task.split, n: 0, c: 0 };
    byTask.set(ep.task.id, { ...t, n: t.n + 1, c: t.c + (ep.outcome >= 1 ? 1 : 0) });
  }
  const tasks = [...byTask.values()].sort((a, b) => a.key.localeCompare(b.key));
  const turnIds = episodes.flatMap((ep) => ep.steps.flatMap((s) => (s.turnId ? [s.turnId] : [])));
  const versions = await db().turn.findMany({
    where: { id: { in: turnIds } },
    distinct: ["policyVersion"],
    select: { policyVersion: true },
    orderBy: { policyVersion: "asc" },
  });
  return {
    launchId: input.launchId,
    episodes: episodes.length,
    pending: episodes.filter((ep) => ep.status === "QUEUED" || ep.status === "RUNNING").length,
    failed: episodes.filter((ep) => ep.status === "FAILED").length,
    truncated: episodes.filter((ep) => ep.status === "DONE" && ep.truncation !== null).length,
    policyVersions: versions.map((v) => v.policyVersion),
    passAt1: passAtK(tasks, 1),
    passAtK: passAtK(tasks, input.k),
    tasks: tasks.map((t) => ({ ...t, passAt1: taskPassAtK(t, 1), passAtK: taskPassAtK(t, input.k) })),
  };
}
