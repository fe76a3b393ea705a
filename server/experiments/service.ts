// Experiment CRUD. Every mutation runs in a transaction together with its audit entry.
import { probeCustomReward } from "../judge/core/customRewardProbe";
import { authorizeRow, experimentIdOrSlug, loadExperimentFor } from "../access/scope";
import type { z } from "zod";
import { db, type Prisma } from "../platform/db/client";
import { LIVE_RUN_STATUSES } from "../platform/db/runStatus";
import type { Experiment } from "../platform/db/generated/client";
import { audit } from "../access/audit";
import { assertExperimentAccess, boundExperimentId, can, type Principal, actorUserId } from "../access/principal";
import { AppError, appError, conflict, notFound, type Issue } from "../platform/errors";
import { ExtensionPathError, modelDirProblem, resolveExtensionModule } from "../platform/extensions";
import { ExperimentConfigSchema, type ExperimentConfig } from "../config/experimentConfig";
import { patternProblem } from "../platform/safePattern";
import { diffConfigs } from "./diff";
import { sealSecrets, secretsSet, type SealedSecrets } from "../config/secrets";
import { assertEgressAllowed, EgressRefusedError } from "../platform/egress";
import { badRequest } from "../platform/errors";
import type {
  ConfigDiffInput,
  ExperimentCloneInput,
  ExperimentCreateInput,
  ExperimentListInput,
  ExperimentUpdateInput,
} from "./schemas";

export interface ExperimentView {
  id: string;
  slug: string;
  name: string;
  description: string;
  status: "ACTIVE" | "ARCHIVED";
  demo: boolean;
  config: ExperimentConfig;
  secretsSet: string[];
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
  activeRun: { id: string; number: number; status: string } | null;
  counts?: { runs: number; sessions: number; turns: number };
}

type Row = Experiment & {
  runs?: { id: string; number: number; status: string }[];
  _count?: { runs: number; sessions: number; turns: number };
};

export function toView(e: Row): ExperimentView {
  return {
    id: e.id,
    slug: e.slug,
    name: e.name,
    description: e.description,
    status: e.status,
    demo: e.demo,
    config: ExperimentConfigSchema.parse(e.config),
    secretsSet: secretsSet(e.secrets as SealedSecrets),
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
    archivedAt: e.archivedAt?.toISOString() ?? null,
    activeRun: e.runs?.[0] ?? null,
    counts: e._count,
  };
}

const ACTIVE_RUN = {
  where: { status: { in: LIVE_RUN_STATUSES } },
  orderBy: { number: "desc" },
  take: 1,
  select: { id: true, number: true, status: true },
} satisfies Prisma.Experiment$runsArgs;

/** Upstream URLs must pass the egress policy before they are saved (and again before every call). */
async function assertConfigEgress(config: ExperimentConfig): Promise<void> {
  const urls: [string, string | undefined][] = [
    ["config.policy.baseUrl", "baseUrl" in config.policy ? config.policy.baseUrl : undefined],
    ["config.judge.backend.baseUrl", "baseUrl" in config.judge.backend ? config.judge.backend.baseUrl : undefined],
    ["config.trainer.rayAddress", config.trainer.rayAddress],
  ];
  const issues = [];
  for (const [path, url] of urls) {
    if (!url) continue;
    try {
      await assertEgressAllowed(url, undefined, { allowUnresolvable: true });
    } catch (err) {
      if (!(err instanceof EgressRefusedError)) throw err;
      issues.push({ path, message: err.message });
    }
  }
  if (issues.length) throw badRequest(`Upstream address refused: ${issues.map((i) => i.message).join("; ")}`, issues);
}

/**
 * Serving patterns run on every proxied message: refused at save unless RE2 compiles them and they nest no
 * repetition (platform/safePattern). Stored ones are matched in linear time whatever they are.
 */
function assertServingPatterns(config: ExperimentConfig): void {
  const issues = (["sidePatterns", "contextPatterns"] as const).flatMap((field) =>
    config.serving[field].flatMap((pattern, i) => {
      const problem = patternProblem(pattern);
      return problem
        ? [{ path: `config.serving.${field}.${i}`, message: `${JSON.stringify(pattern)} ${problem}` }]
        : [];
    }),
  );
  if (issues.length) throw badRequest(`Pattern refused: ${issues.map((i) => i.message).join("; ")}`, issues);
}

/** The config fields that name files on the host: code the workers import, or a checkpoint they read. */
function hostPaths(c: ExperimentConfig): Record<string, string | undefined> {
  return {
    "config.judge.backend.modulePath": c.judge.backend.kind === "custom" ? c.judge.backend.modulePath : undefined,
    "config.evaluation.graderPath": c.evaluation.graderPath,
    "config.customLossPath": c.customLossPath,
    "config.policy.checkpoint": c.policy.kind === "embedded" ? c.policy.checkpoint : undefined,
  };
}

/**
 * Custom modules run with the workers' privileges: only an admin sets or changes their paths. Anyone with
 * `write` may save a config that keeps the stored value (`stored` is null on create: nothing to keep).
 */
function assertModulePathsAllowed(p: Principal, next: ExperimentConfig, stored: ExperimentConfig | null): void {
  if (can(p, "admin")) return;
  const before = stored ? hostPaths(stored) : {};
  const issues = Object.entries(hostPaths(next))
    .filter(([field, value]) => field !== "config.policy.checkpoint" && value !== undefined && value !== before[field])
    .map(([path]) => ({ path, message: "only an administrator may set or change a custom module path" }));
  if (issues.length)
    throw new AppError(
      "FORBIDDEN",
      `Custom module paths are admin-only: ${issues.map((i) => i.path).join(", ")}`,
      issues,
    );
}

/**
 * Paths that name host files must stay in the operator's directories: modules inside EXTENSIONS_DIR (a slime
 * loss is a path on the cluster, not here), the embedded checkpoint inside MODELS_DIR. A custom reward module
 * must also answer the probe (in a child process: never imported here) before it is saved.
 */
async function assertHostPaths(config: ExperimentConfig): Promise<void> {
  const paths = hostPaths(config);
  const issues: Issue[] = [];
  const modules = [
    "config.judge.backend.modulePath",
    "config.evaluation.graderPath",
    ...(config.trainer.backend === "embedded" ? ["config.customLossPath"] : []),
  ];
  for (const field of modules) {
    const value = paths[field];
    if (!value) continue;
    const file = field === "config.customLossPath" ? value.replace(/#[^#/]*$/, "") : value;
    try {
      await resolveExtensionModule(file);
    } catch (err) {
      if (!(err instanceof ExtensionPathError)) throw err;
      issues.push({ path: field, message: err.message });
    }
  }
  const checkpoint = paths["config.policy.checkpoint"];
  const problem = checkpoint ? await modelDirProblem(checkpoint) : null;
  if (problem) issues.push({ path: "config.policy.checkpoint", message: `${JSON.stringify(checkpoint)} ${problem}` });
  if (issues.length) throw badRequest(`Path refused: ${issues.map((i) => i.message).join("; ")}`, issues);
  const backend = config.judge.backend;
  if (backend.kind !== "custom") return;
  const checked = await probeCustomReward(backend.modulePath);
  if (!checked.ok) {
    throw badRequest(`Custom reward module rejected: ${checked.error}`, [
      { path: "config.judge.backend.modulePath", message: checked.error },
    ]);
  }
}

/** Names the field, so the form shows it beside the slug. */
const slugTaken = (slug: string) =>
  appError("name_taken", `Slug '${slug}' is already taken`, [
    { path: "slug", message: `'${slug}' is already taken by another experiment` },
  ]);

function slugify(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 50);
  return s.length >= 2 ? s : `exp-${s || "x"}`;
}

async function uniqueSlug(tx: Prisma.TransactionClient, base: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const candidate = i === 0 ? base : `${base}-${i + 1}`;
    if (!(await tx.experiment.findUnique({ where: { slug: candidate }, select: { id: true } }))) return candidate;
  }
  return `${base}-${Date.now().toString(36)}`;
}

export async function getExperiment(p: Principal, idOrSlug: string): Promise<ExperimentView> {
  const e = authorizeRow(
    p,
    "Experiment",
    idOrSlug,
    await db().experiment.findFirst({
      where: experimentIdOrSlug(idOrSlug),
      include: { runs: ACTIVE_RUN, _count: { select: { runs: true, sessions: true, turns: true } } },
    }),
    (r) => r.id,
  );
  return toView(e);
}

export async function listExperiments(p: Principal, input: z.output<typeof ExperimentListInput>) {
  const bound = boundExperimentId(p);
  const where: Prisma.ExperimentWhereInput = {
    ...(bound ? { id: bound } : {}),
    ...(input.status !== "ALL" ? { status: input.status } : {}),
    ...(input.method ? { config: { path: ["method"], equals: input.method } } : {}),
    ...(input.search
      ? {
          OR: [
            { name: { contains: input.search, mode: "insensitive" } },
            { slug: { contains: input.search, mode: "insensitive" } },
            { description: { contains: input.search, mode: "insensitive" } },
          ],
        }
      : {}),
  };
  const rows = await db().experiment.findMany({
    where,
    orderBy: [{ [input.sort]: input.order }, { id: input.order }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
    include: { runs: ACTIVE_RUN, _count: { select: { runs: true, sessions: true, turns: true } } },
  });
  const hasMore = rows.length > input.limit;
  const items = rows.slice(0, input.limit).map(toView);
  return { items, nextCursor: hasMore ? items[items.length - 1]!.id : null };
}

export async function createExperiment(
  p: Principal,
  input: z.output<typeof ExperimentCreateInput>,
  opts: { demo?: boolean } = {},
) {
  if (p.kind === "apiKey" && p.experimentId) throw conflict("A key bound to one experiment cannot create experiments");
  assertModulePathsAllowed(p, input.config, null);
  assertServingPatterns(input.config);
  await assertConfigEgress(input.config);
  await assertHostPaths(input.config);
  const { config, secrets } = sealSecrets(input.config);
  const created = await db().$transaction(async (tx) => {
    if (input.slug && (await tx.experiment.findUnique({ where: { slug: input.slug }, select: { id: true } }))) {
      throw slugTaken(input.slug);
    }
    const slug = input.slug ?? (await uniqueSlug(tx, slugify(input.name)));
    const e = await tx.experiment.create({
      data: {
        slug,
        name: input.name,
        description: input.description,
        config: config as unknown as Prisma.InputJsonValue,
        secrets,
        demo: opts.demo ?? false,
        createdById: actorUserId(p),
      },
    });
    await audit(tx, p, "experiment.create", "experiment", e.id, null, { slug, name: e.name, config });
    return e;
  });
  return toView(created);
}

export async function updateExperiment(p: Principal, input: z.output<typeof ExperimentUpdateInput>) {
  assertExperimentAccess(p, input.id);
  if (input.config) {
    const stored = await db().experiment.findUnique({ where: { id: input.id }, select: { config: true } });
    if (!stored) throw notFound("Experiment", input.id);
    assertModulePathsAllowed(p, input.config, ExperimentConfigSchema.parse(stored.config));
    assertServingPatterns(input.config);
    await Promise.all([assertConfigEgress(input.config), assertHostPaths(input.config)]);
  }
  const updated = await db().$transaction(async (tx) => {
    const before = await tx.experiment.findUnique({ where: { id: input.id } });
    if (!before) throw notFound("Experiment", input.id);
    if (before.status === "ARCHIVED")
      throw appError("archived", "Archived experiments are read-only: clone it to make changes");
    // Again under the transaction: the value kept must be the one stored now, not at the early check.
    if (input.config) assertModulePathsAllowed(p, input.config, ExperimentConfigSchema.parse(before.config));
    const sealed = input.config ? sealSecrets(input.config, before.secrets as SealedSecrets, before.config) : null;
    const e = await tx.experiment.update({
      where: { id: input.id },
      data: {
        name: input.name,
        description: input.description,
        ...(sealed ? { config: sealed.config as unknown as Prisma.InputJsonValue, secrets: sealed.secrets } : {}),
      },
    });
    await audit(
      tx,
      p,
      "experiment.update",
      "experiment",
      e.id,
      { name: before.name, description: before.description, config: before.config },
      {
        name: e.name,
        description: e.description,
        config: e.config,
        // A stored provider key whose endpoint moved to another origin without being sent again is dropped.
        ...(sealed?.cleared.length ? { secretsCleared: sealed.cleared } : {}),
      },
    );
    return e;
  });
  return toView(updated);
}

export async function cloneExperiment(p: Principal, input: z.output<typeof ExperimentCloneInput>) {
  assertExperimentAccess(p, input.id);
  // The clone is a new experiment outside the key's binding (with the source's secrets): as for create.
  if (p.kind === "apiKey" && p.experimentId) throw conflict("A key bound to one experiment cannot clone experiments");
  const created = await db().$transaction(async (tx) => {
    const src = await tx.experiment.findUnique({ where: { id: input.id } });
    if (!src) throw notFound("Experiment", input.id);
    const name = input.name ?? `${src.name} (copy)`;
    if (input.slug && (await tx.experiment.findUnique({ where: { slug: input.slug }, select: { id: true } }))) {
      throw slugTaken(input.slug);
    }
    const slug = input.slug ?? (await uniqueSlug(tx, slugify(name)));
    const e = await tx.experiment.create({
      data: {
        slug,
        name,
        description: src.description,
        config: src.config as Prisma.InputJsonValue,
        secrets: src.secrets as Prisma.InputJsonValue,
        createdById: actorUserId(p),
      },
    });
    await audit(tx, p, "experiment.clone", "experiment", e.id, { sourceId: src.id }, { slug, name });
    return e;
  });
  return toView(created);
}

export async function archiveExperiment(p: Principal, id: string, archived = true) {
  assertExperimentAccess(p, id);
  const e = await db().$transaction(async (tx) => {
    const before = await tx.experiment.findUnique({ where: { id }, include: { runs: ACTIVE_RUN } });
    if (!before) throw notFound("Experiment", id);
    if (archived && before.runs.length) throw conflict(`Stop run #${before.runs[0]!.number} before archiving`);
    const after = await tx.experiment.update({
      where: { id },
      data: { status: archived ? "ARCHIVED" : "ACTIVE", archivedAt: archived ? new Date() : null },
    });
    await audit(
      tx,
      p,
      archived ? "experiment.archive" : "experiment.unarchive",
      "experiment",
      id,
      { status: before.status },
      { status: after.status },
    );
    return after;
  });
  return toView(e);
}

/** Deletes only an experiment that holds no data; otherwise the caller is told to archive it. */
export async function deleteExperiment(p: Principal, id: string) {
  assertExperimentAccess(p, id);
  await db().$transaction(async (tx) => {
    const e = await tx.experiment.findUnique({
      where: { id },
      include: { _count: { select: { runs: true, sessions: true, turns: true } } },
    });
    if (!e) throw notFound("Experiment", id);
    const { runs, sessions, turns } = e._count;
    if (runs + sessions + turns > 0) {
      throw conflict(
        `Experiment '${e.slug}' holds data (${runs} runs, ${sessions} sessions, ${turns} turns): archive it instead`,
      );
    }
    await tx.experiment.delete({ where: { id } });
    await audit(tx, p, "experiment.delete", "experiment", id, { slug: e.slug, name: e.name, config: e.config }, null);
  });
  return { id, deleted: true as const };
}

export async function diffExperimentsOrRuns(p: Principal, input: z.output<typeof ConfigDiffInput>) {
  const load = async (id: string) => {
    if (input.kind === "experiment") {
      const e = await loadExperimentFor(p, id);
      return { id: e.id, label: e.slug, config: e.config };
    }
    const r = authorizeRow(
      p,
      "Run",
      id,
      await db().run.findUnique({ where: { id }, include: { experiment: { select: { slug: true } } } }),
      (r) => r.experimentId,
    );
    return { id: r.id, label: `${r.experiment.slug}#${r.number}`, config: r.config };
  };
  const [a, b] = await Promise.all([load(input.a), load(input.b)]);
  return { a: { id: a.id, label: a.label }, b: { id: b.id, label: b.label }, changes: diffConfigs(a.config, b.config) };
}
