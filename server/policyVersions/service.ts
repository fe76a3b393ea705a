// Policy versions of an experiment: list, promote one to ACTIVE, or roll back. Each change is one
// transaction under the experiment's row lock (the trainer's commit takes the same lock), audited, and
// announced on the `policyVersion` channel so every proxy switches to it. Rolling back to version 0
// serves the experiment's base checkpoint again. The trainer continues from whatever is ACTIVE.
import { existsSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { db, type Prisma } from "../platform/db/client";
import type { PolicyVersion } from "../platform/db/generated/client";
import { audit } from "../access/audit";
import { assertExperimentAccess, type Principal } from "../access/principal";
import { publish } from "../platform/bus/pubsub";
import { conflict, notFound } from "../platform/errors";
import { ExperimentConfigSchema } from "../config/experimentConfig";
import { LIVE_RUN_STATUSES } from "../platform/db/runStatus";
import type { PolicyVersionGetInput, PolicyVersionListInput, PromoteInput, RollbackInput } from "./schemas";

type Tx = Prisma.TransactionClient;

export function policyVersionView(v: PolicyVersion) {
  return {
    id: v.id,
    experimentId: v.experimentId,
    runId: v.runId,
    version: v.version,
    parentVersion: v.parentVersion,
    status: v.status,
    step: v.step,
    checkpointPath: v.checkpointPath,
    checkpointSha: v.checkpointSha,
    bytes: v.bytes,
    /** false once its files were pruned (keepCheckpoints): it can no longer be promoted */
    available: v.checkpointPath !== null,
    createdAt: v.createdAt.toISOString(),
    promotedAt: v.promotedAt?.toISOString() ?? null,
    /** why a CANDIDATE is held back by the promotion gate */
    gateReason: v.gateReason,
  };
}
export type PolicyVersionView = ReturnType<typeof policyVersionView>;

export interface ChangeResult {
  active: { version: number; checkpointPath: string | null };
  previous: number;
  versions: PolicyVersionView[];
}

export async function listPolicyVersions(p: Principal, input: z.output<typeof PolicyVersionListInput>) {
  assertExperimentAccess(p, input.experimentId);
  const rows = await db().policyVersion.findMany({
    where: { experimentId: input.experimentId, runId: input.runId },
    orderBy: [{ version: "desc" }, { id: "desc" }],
    take: input.limit + 1,
    ...(input.cursor ? { cursor: { id: input.cursor }, skip: 1 } : {}),
  });
  const items = rows.slice(0, input.limit).map(policyVersionView);
  const active = await db().policyVersion.findFirst({
    where: { experimentId: input.experimentId, status: "ACTIVE" },
    select: { version: true },
  });
  return {
    items,
    nextCursor: rows.length > input.limit ? items[items.length - 1]!.id : null,
    activeVersion: active?.version ?? 0,
  };
}

export async function getPolicyVersion(p: Principal, input: z.output<typeof PolicyVersionGetInput>) {
  assertExperimentAccess(p, input.experimentId);
  const v = await db().policyVersion.findUnique({
    where: { experimentId_version: { experimentId: input.experimentId, version: input.version } },
  });
  if (!v) throw notFound("Policy version", String(input.version));
  const steps =
    v.runId && v.step !== null
      ? await db().trainingStep.findUnique({ where: { runId_step: { runId: v.runId, step: v.step } } })
      : null;
  return {
    ...policyVersionView(v),
    trainingStep: steps
      ? {
          id: steps.id,
          step: steps.step,
          durationMs: steps.durationMs,
          metrics: steps.metrics,
          createdAt: steps.createdAt.toISOString(),
        }
      : null,
  };
}

/** Locks the experiment row (serialising every version change, trainer commits included). */
async function lockExperiment(tx: Tx, experimentId: string): Promise<void> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM experiments WHERE id = ${experimentId} FOR UPDATE`;
  if (!rows.length) throw notFound("Experiment", experimentId);
}

async function servableTarget(tx: Tx, experimentId: string, version: number): Promise<PolicyVersion> {
  const target = await tx.policyVersion.findUnique({ where: { experimentId_version: { experimentId, version } } });
  if (!target) throw notFound("Policy version", String(version));
  if (!target.checkpointPath)
    throw conflict(`Version ${version}'s checkpoint was pruned (keepCheckpoints): it cannot be served again`);
  if (!existsSync(path.join(target.checkpointPath, "meta.json")))
    throw conflict(`Version ${version}'s checkpoint is missing on disk (${target.checkpointPath})`);
  return target;
}

/** The base checkpoint a rollback to version 0 serves (the live run's frozen config, else the experiment's). */
async function baseCheckpoint(tx: Tx, experimentId: string): Promise<string | null> {
  const e = await tx.experiment.findUniqueOrThrow({
    where: { id: experimentId },
    select: {
      config: true,
      runs: {
        where: { status: { in: LIVE_RUN_STATUSES } },
        orderBy: { number: "desc" },
        take: 1,
        select: { config: true },
      },
    },
  });
  const config = ExperimentConfigSchema.parse(e.runs[0]?.config ?? e.config);
  // turbopackIgnore: a checkpoint folder from the config, read at run time, not traced into the web build
  return config.policy.kind === "embedded"
    ? path.resolve(/* turbopackIgnore: true */ process.cwd(), config.policy.checkpoint)
    : null;
}

async function announce(experimentId: string, active: ChangeResult["active"]): Promise<void> {
  // Best-effort: proxies also pick up the ACTIVE version when they refresh the experiment.
  await publish("policyVersion", {
    experimentId,
    version: active.version,
    checkpointPath: active.checkpointPath,
  }).catch(() => {});
}

async function changed(experimentId: string, active: ChangeResult["active"], previous: number): Promise<ChangeResult> {
  await announce(experimentId, active);
  const rows = await db().policyVersion.findMany({ where: { experimentId }, orderBy: { version: "desc" }, take: 20 });
  return { active, previous, versions: rows.map(policyVersionView) };
}

/** Make `version` the one served (the previous ACTIVE becomes RETIRED). */
export async function promotePolicyVersion(p: Principal, input: z.output<typeof PromoteInput>): Promise<ChangeResult> {
  assertExperimentAccess(p, input.experimentId);
  return promote(p, input.experimentId, input.version, "policyVersion.promote", {});
}

/**
 * The promotion gate's and auto-rollback's entry points (server/evaluation): the same transactions,
 * audited without an actor under their own action names, with the reason in the audit entry.
 */
export function systemPromote(
  experimentId: string,
  version: number,
  reason: string,
  gateDraw = 0,
): Promise<ChangeResult> {
  return promote(null, experimentId, version, "policyVersion.gatePromote", { reason }, gateDraw);
}
export function systemRollback(experimentId: string, toVersion: number, reason: string): Promise<ChangeResult> {
  return rollback(null, experimentId, toVersion, "policyVersion.autoRollback", { reason });
}

async function promote(
  p: Principal | null,
  experimentId: string,
  version: number,
  action: string,
  why: Record<string, unknown>,
  /** the gate's confirmation draw (serving.gate.confirm); 0 otherwise */
  gateDraw = 0,
): Promise<ChangeResult> {
  const { active, previous } = await db().$transaction(async (tx) => {
    await lockExperiment(tx, experimentId);
    const target = await servableTarget(tx, experimentId, version);
    const current = await tx.policyVersion.findFirst({ where: { experimentId, status: "ACTIVE" } });
    if (current?.id !== target.id) {
      await tx.policyVersion.updateMany({ where: { experimentId, status: "ACTIVE" }, data: { status: "RETIRED" } });
      await tx.policyVersion.update({
        where: { id: target.id },
        data: { status: "ACTIVE", promotedAt: new Date(), gateReason: null, gateDraw },
      });
      await audit(
        tx,
        p,
        action,
        "experiment",
        experimentId,
        { activeVersion: current?.version ?? 0 },
        { activeVersion: target.version, ...why },
      );
    }
    return {
      active: { version: target.version, checkpointPath: target.checkpointPath },
      previous: current?.version ?? 0,
    };
  });
  return changed(experimentId, active, previous);
}

/**
 * Stop serving the ACTIVE version (it becomes ROLLED_BACK) and serve `toVersion` instead: by default the
 * ACTIVE version's parent, 0 meaning the base checkpoint.
 */
export async function rollbackPolicyVersion(
  p: Principal,
  input: z.output<typeof RollbackInput>,
): Promise<ChangeResult> {
  assertExperimentAccess(p, input.experimentId);
  return rollback(p, input.experimentId, input.toVersion, "policyVersion.rollback", {});
}

async function rollback(
  p: Principal | null,
  experimentId: string,
  toVersion: number | undefined,
  action: string,
  why: Record<string, unknown>,
): Promise<ChangeResult> {
  const { active, previous } = await db().$transaction(async (tx) => {
    await lockExperiment(tx, experimentId);
    const current = await tx.policyVersion.findFirst({ where: { experimentId, status: "ACTIVE" } });
    const currentVersion = current?.version ?? 0;
    const to = toVersion ?? current?.parentVersion ?? 0;
    if (!current && toVersion === undefined)
      throw conflict("The base checkpoint is being served: there is nothing to roll back");
    if (to === currentVersion) throw conflict(`Version ${to} is already the one served`);
    const target = to > 0 ? await servableTarget(tx, experimentId, to) : null;
    if (current) await tx.policyVersion.update({ where: { id: current.id }, data: { status: "ROLLED_BACK" } });
    if (target)
      await tx.policyVersion.update({
        where: { id: target.id },
        data: { status: "ACTIVE", promotedAt: new Date(), gateReason: null },
      });
    await audit(
      tx,
      p,
      action,
      "experiment",
      experimentId,
      { activeVersion: currentVersion },
      { activeVersion: to, ...why },
    );
    const checkpointPath = target ? target.checkpointPath : await baseCheckpoint(tx, experimentId);
    return { active: { version: to, checkpointPath }, previous: currentVersion };
  });
  return changed(experimentId, active, previous);
}
