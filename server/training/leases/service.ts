// Batch leases for external trainers. A lease hands out the oldest ready samples of a run until it expires;
// acknowledging it with the trained step sets the samples' stepId (once: a sample trains once however
// often the job re-acknowledges) and records the step, the new policy version and the step's metrics.
//
// Concurrency: every lease and acknowledgement of a run locks the run row, so two leases never see the
// same free samples; an acknowledgement also locks the experiment row, as the embedded trainer's commit
// does, because both allocate policy versions. An expired lease needs no sweeper: a sample is free when
// its lease is gone, acknowledged or past expiresAt, which every lease query checks in the database.
import { db, type Prisma } from "../../platform/db/client";
import { TERMINAL_RUN_STATUSES } from "../../platform/db/runStatus";
import type { Principal } from "../../access/principal";
import { appError, badRequest, conflict, notFound } from "../../platform/errors";
import { assertTrainerEndpointAllowed, EgressRefusedError } from "../../platform/egress";
import { activeVersion, nextVersion } from "../../policyVersions/active";
import { metricRows, publishMetrics, type Point } from "../metrics";
import { loadLeasedSamples } from "./payload";
import type {
  AckInputT,
  AckResult,
  LeasedUserAdapter,
  LeaseInputT,
  LeaseResult,
  ReportInputT,
  ReportResult,
} from "./schemas";
import { loadRunFor } from "../../access/scope";
import { audit } from "../../access/audit";
import { ExperimentConfigSchema, type ExperimentConfig } from "../../config/experimentConfig";
import { adapterDirProblem } from "../../platform/extensions";

export type Tx = Prisma.TransactionClient;

/** Turns the run's judged turns into Sample rows before leasing (server/training/samples.ts collectSamples). */
export type SampleFiller = (runId: string) => Promise<unknown>;

/** The transaction's own clock, so every expiry comparison uses one time source (the database's). */
async function dbNow(tx: Tx): Promise<Date> {
  const [row] = await tx.$queryRaw<{ now: Date }[]>`SELECT (now() AT TIME ZONE 'UTC') AS now`;
  return row!.now;
}

const plusSeconds = (d: Date, s: number) => new Date(d.getTime() + s * 1000);

/** Samples nobody holds: untrained, not excluded, and with no live (unacknowledged, unexpired) lease. */
function freeSamplesWhere(runId: string, now: Date): Prisma.SampleWhereInput {
  return {
    runId,
    stepId: null,
    excluded: false,
    OR: [{ leaseId: null }, { lease: { ackedAt: null, expiresAt: { lte: now } } }],
  };
}

/** Samples of `lease` that another lease holds (or trained) since it expired. */
function supersededSamples(lease: { id: string; sampleIds: string[] }): Prisma.SampleWhereInput {
  return { id: { in: lease.sampleIds }, AND: [{ leaseId: { not: null } }, { leaseId: { not: lease.id } }] };
}

async function lockRun(tx: Tx, runId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM runs WHERE id = ${runId} FOR UPDATE`;
}

/** What a lease call shares, whatever it hands out: the run checks, the paused answer, the retry key. */
export interface OpenLease {
  policyVersion: number;
  paused: boolean;
  leaseId: string | null;
  expiresAt: string | null;
  sampleIds: string[];
  /** the end user whose samples the lease holds (a per-user experiment's lease); null otherwise */
  endUserId: string | null;
  now: Date | null;
}

/** The samples a new lease takes, and in a per-user experiment the one end user they all belong to. */
export interface Picked {
  sampleIds: string[];
  endUserId?: string;
}

/** Picks the samples a new lease takes (inside the run's lock), or null when too few are ready. */
export type LeasePicker = (tx: Tx, runId: string, now: Date) => Promise<Picked | null>;

/** A user's version a per-user lease's acknowledgement registers (personalization/service.ts ServedAdapterVersion). */
export interface UserVersion {
  experimentId: string;
  endUserId: string;
  path: string;
  rank: number;
  alpha: number;
  samples: number;
  meanReward: number | null;
  throughAt: Date | null;
}

/**
 * Per-user personalization as the lease service uses it (personalization/leases.ts, passed in by the gateway): which
 * user's samples a lease takes, how many are leasable, and the register path of a user's version.
 */
export interface PerUserLeasing {
  picker(
    experimentId: string,
    config: ExperimentConfig,
    input: { size: number; minSize: number },
    freeWhere: (runId: string, now: Date) => Prisma.SampleWhereInput,
  ): LeasePicker;
  leasableCount(client: Pick<Tx, "sample">, free: Prisma.SampleWhereInput, config: ExperimentConfig): Promise<number>;
  /** The leased user's adapter state (personalization/leases.ts userAdapterState). */
  adapterState(experimentId: string, endUserId: string): Promise<LeasedUserAdapter>;
  assertServable(config: ExperimentConfig, path: string): Promise<void>;
  registerVersion(
    tx: Tx,
    p: Principal,
    v: UserVersion,
  ): Promise<{ endUserId: string; adapterId: string; version: number; state: string }>;
  announce(experimentId: string, endUserId: string): void;
}

/** A per-user run needs the per-user leasing; the gateway passes it (a missing one is a wiring error). */
function perUserOf(config: ExperimentConfig, opts: { perUser?: PerUserLeasing }): PerUserLeasing | null {
  if (config.personalization !== "per-user") return null;
  if (!opts.perUser) throw new Error("a per-user run's batches need the per-user leasing (personalization/leases.ts)");
  return opts.perUser;
}

/**
 * Checks the run, fills its samples, and under the run's lock either renews the lease a retried request key
 * already holds (with the samples it still holds) or takes what `pick` chooses. Sample leases and episode
 * leases (episodes.ts) differ only in `pick` and in how they present the samples.
 */
export async function openLease(
  p: Principal,
  runId: string,
  input: { leaseSeconds: number; requestKey?: string },
  pick: LeasePicker,
  opts: { fill?: SampleFiller } = {},
): Promise<OpenLease> {
  const run = await loadRunFor(p, runId);
  if (run.trainerBackend === "embedded")
    throw appError("not_leasable", `Run #${run.number} trains on the embedded trainer: its samples cannot be leased`);
  if (TERMINAL_RUN_STATUSES.includes(run.status))
    throw appError("run_ended", `Run #${run.number} is ${run.status.toLowerCase()}: the trainer should stop`);
  const { version: policyVersion } = await activeVersion(run.experimentId);
  if (run.status === "PAUSED") {
    await db().run.update({ where: { id: runId }, data: { heartbeatAt: new Date() } });
    return { policyVersion, paused: true, leaseId: null, expiresAt: null, sampleIds: [], endUserId: null, now: null };
  }
  if (opts.fill) await opts.fill(runId);

  const leased = await db().$transaction(async (tx) => {
    await lockRun(tx, runId);
    const now = await dbNow(tx);
    const expiresAt = plusSeconds(now, input.leaseSeconds);
    await tx.run.update({ where: { id: runId }, data: { heartbeatAt: now } });

    // A retried request (same key): the same lease, renewed, with the samples it still holds.
    const prior = input.requestKey
      ? await tx.batchLease.findUnique({ where: { runId_requestKey: { runId, requestKey: input.requestKey } } })
      : null;
    if (prior) {
      if (prior.ackedAt)
        throw conflict(
          `Lease ${prior.id} (key '${input.requestKey}') was already acknowledged at step ${prior.step}: use a new requestKey`,
        );
      const held = new Set(
        (await tx.sample.findMany({ where: { leaseId: prior.id, stepId: null }, select: { id: true } })).map(
          (s) => s.id,
        ),
      );
      const lease = await tx.batchLease.update({ where: { id: prior.id }, data: { expiresAt } });
      return { lease, sampleIds: prior.sampleIds.filter((id) => held.has(id)), now };
    }

    const picked = await pick(tx, runId, now);
    if (!picked) return { lease: null, sampleIds: [], now };
    const { sampleIds, endUserId = null } = picked;
    const lease = await tx.batchLease.create({
      data: { runId, requestKey: input.requestKey ?? null, sampleIds, endUserId, leasedAt: now, expiresAt },
    });
    await tx.sample.updateMany({
      where: { id: { in: sampleIds } },
      data: { leaseId: lease.id, leaseCount: { increment: 1 } },
    });
    return { lease, sampleIds, now };
  });
  return {
    policyVersion,
    paused: false,
    leaseId: leased.lease?.id ?? null,
    expiresAt: leased.lease?.expiresAt.toISOString() ?? null,
    sampleIds: leased.sampleIds,
    endUserId: leased.lease?.endUserId ?? null,
    now: leased.now,
  };
}

export async function leaseBatch(
  p: Principal,
  runId: string,
  input: LeaseInputT,
  opts: { fill?: SampleFiller; perUser?: PerUserLeasing } = {},
): Promise<LeaseResult> {
  const run = await loadRunFor(p, runId);
  const config = ExperimentConfigSchema.parse(run.config);
  const perUser = perUserOf(config, opts);
  const pickOldest: LeasePicker = async (tx, id, now) => {
    const free = await tx.sample.findMany({
      where: freeSamplesWhere(id, now),
      orderBy: [{ turn: { createdAt: "asc" } }, { id: "asc" }],
      take: input.size,
      select: { id: true },
    });
    return free.length < input.minSize ? null : { sampleIds: free.map((s) => s.id) };
  };
  const pick = perUser ? perUser.picker(run.experimentId, config, input, freeSamplesWhere) : pickOldest;
  const l = await openLease(p, runId, input, pick, opts);
  const available = !l.now
    ? 0
    : perUser
      ? await perUser.leasableCount(db(), freeSamplesWhere(runId, l.now), config)
      : await db().sample.count({ where: freeSamplesWhere(runId, l.now) });
  return {
    leaseId: l.leaseId,
    expiresAt: l.expiresAt,
    paused: l.paused,
    available,
    policyVersion: l.policyVersion,
    endUserId: l.endUserId,
    adapter: perUser && l.endUserId ? await perUser.adapterState(run.experimentId, l.endUserId) : null,
    samples: await loadLeasedSamples(l.sampleIds),
  };
}

/**
 * With policy.loraAdapters the proxy asks the serving engine to load the acknowledged checkpoint folder: a
 * trainer key may only name one inside the operator's adapter directories (400 naming `checkpointPath`).
 * Other experiments' checkpoint paths (slime --save dirs, tinker:// URIs) are never opened by the console.
 */
async function assertServableAdapter(experimentId: string, checkpointPath: string): Promise<void> {
  const e = await db().experiment.findUniqueOrThrow({ where: { id: experimentId }, select: { config: true } });
  const { policy } = ExperimentConfigSchema.parse(e.config);
  if (policy.kind === "embedded" || !policy.loraAdapters) return;
  const problem = await adapterDirProblem(checkpointPath);
  if (problem)
    throw badRequest(`checkpointPath ${problem}`, [{ path: "checkpointPath", message: `adapter folder ${problem}` }]);
}

export async function ackBatch(
  p: Principal,
  runId: string,
  leaseId: string,
  input: AckInputT,
  opts: { perUser?: PerUserLeasing } = {},
): Promise<AckResult> {
  const run = await loadRunFor(p, runId);
  const runConfig = ExperimentConfigSchema.parse(run.config);
  const perUser = perUserOf(runConfig, opts);
  // A per-user run's checkpoints are its users' adapter versions: held to the rule a registered one is.
  if (input.checkpointPath)
    await (perUser
      ? perUser.assertServable(runConfig, input.checkpointPath)
      : assertServableAdapter(run.experimentId, input.checkpointPath));
  const { result, points, announce } = await db().$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM experiments WHERE id = ${run.experimentId} FOR UPDATE`;
      await lockRun(tx, runId);
      const lease = await tx.batchLease.findFirst({ where: { id: leaseId, runId } });
      if (!lease) throw notFound("Lease", leaseId);
      if (lease.ackedAt)
        return { result: await replayedAck(tx, lease, input.step), points: [] as Point[], announce: null };
      // A stopped run publishes nothing more: an in-flight ack after Stop would mint and promote a version.
      // Read under the run's lock, so a Stop that committed first is seen.
      const { status } = await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } });
      if (TERMINAL_RUN_STATUSES.includes(status))
        throw conflict(`Run #${run.number} is ${status.toLowerCase()}: its batches can no longer be acknowledged`);
      // Fencing: a lease that expired and whose samples were leased again is stale. Its holder trained on samples
      // another batch now owns; acknowledging it would publish a version from a batch the database hands out twice.
      const retaken = await tx.sample.count({ where: supersededSamples(lease) });
      if (retaken)
        throw conflict(
          `Lease ${leaseId} expired and ${retaken} of its samples were leased again: the batch is stale, drop it and lease again`,
        );

      const taken = await tx.trainingStep.findUnique({
        where: { runId_step: { runId, step: input.step } },
        select: { id: true },
      });
      if (taken)
        throw conflict(
          `Step ${input.step} of run #${run.number} is already recorded: acknowledge each step once, with its own lease`,
        );

      const now = await dbNow(tx);
      const active = await activeVersion(run.experimentId, tx);
      if (lease.endUserId && perUser) {
        const r = await ackUserLease(tx, p, perUser, {
          run,
          config: runConfig,
          lease,
          input,
          now,
          policyVersion: active.version,
        });
        return { ...r, announce: r.result.adapter?.state === "PROMOTED" ? lease.endUserId : null };
      }
      // The run's versions chain from each other; the first one from whatever the experiment served then.
      const ownLast = await tx.policyVersion.findFirst({
        where: { runId },
        orderBy: { version: "desc" },
        select: { version: true },
      });
      const parentVersion = ownLast?.version ?? active.version;
      // Someone promoted or rolled back meanwhile: the operator's choice wins and this version stays a candidate.
      const promote = active.version === parentVersion;
      const version = await nextVersion(run.experimentId, tx);

      const metrics = {
        ...input.metrics,
        ...(input.weightVersion !== undefined ? { weight_version: input.weightVersion } : {}),
      };
      const step = await tx.trainingStep.create({
        data: {
          runId,
          step: input.step,
          policyVersion: version,
          metrics,
          durationMs: input.durationMs ?? null,
          createdAt: now,
        },
      });
      const trained = await tx.sample.updateMany({
        where: { leaseId: lease.id, stepId: null },
        data: { stepId: step.id },
      });
      if (promote)
        await tx.policyVersion.updateMany({
          where: { experimentId: run.experimentId, status: "ACTIVE" },
          data: { status: "RETIRED" },
        });
      await tx.policyVersion.create({
        data: {
          experimentId: run.experimentId,
          runId,
          version,
          parentVersion,
          status: promote ? "ACTIVE" : "CANDIDATE",
          checkpointPath: input.checkpointPath ?? null,
          step: input.step,
          promotedAt: promote ? now : null,
        },
      });
      await tx.batchLease.update({
        where: { id: lease.id },
        data: { ackedAt: now, step: input.step, stepId: step.id },
      });
      await tx.run.update({
        where: { id: runId },
        data: {
          lastStep: Math.max(run.lastStep, input.step),
          heartbeatAt: now,
          ...(input.weightVersion !== undefined ? { weightVersion: input.weightVersion } : {}),
        },
      });
      const stepPoints: Point[] = Object.entries(metrics).map(([name, value]) => ({ name, value, step: input.step }));
      const rows = metricRows(run.experimentId, runId, stepPoints, now);
      if (rows.length) await tx.metricPoint.createMany({ data: rows });
      const result: AckResult = {
        leaseId: lease.id,
        step: input.step,
        trainingStepId: step.id,
        policyVersion: version,
        policyVersionStatus: promote ? "ACTIVE" : "CANDIDATE",
        trainedSamples: trained.count,
        lostSamples: lease.sampleIds.length - trained.count,
        replayed: false,
        adapter: null,
      };
      return { result, points: stepPoints, announce: null };
    },
    { timeout: 30_000, maxWait: 15_000 },
  );
  if (announce) perUser?.announce(run.experimentId, announce);
  await publishMetrics(run.experimentId, runId, points);
  return result;
}

/**
 * A per-user lease's acknowledgement: the step trains that user's adapter, never the shared policy (the base stays
 * frozen: no policy version), and with a checkpointPath the folder becomes the user's next version
 * (personalization/service.ts addServedAdapterVersion, as registering one by hand: a CANDIDATE the engine gate
 * decides when the user has held-out turns, else served at once; see there).
 */
async function ackUserLease(
  tx: Tx,
  p: Principal,
  perUser: PerUserLeasing,
  a: {
    run: { id: string; experimentId: string; lastStep: number };
    config: ExperimentConfig;
    lease: { id: string; endUserId: string | null; sampleIds: string[] };
    input: AckInputT;
    now: Date;
    policyVersion: number;
  },
): Promise<{ result: AckResult; points: Point[] }> {
  const { run, lease, input, now } = a;
  const metrics = {
    ...input.metrics,
    ...(input.weightVersion !== undefined ? { weight_version: input.weightVersion } : {}),
  };
  const step = await tx.trainingStep.create({
    data: {
      runId: run.id,
      step: input.step,
      policyVersion: a.policyVersion,
      metrics,
      durationMs: input.durationMs ?? null,
      createdAt: now,
    },
  });
  const trained = await tx.sample.updateMany({ where: { leaseId: lease.id, stepId: null }, data: { stepId: step.id } });
  const adapter = input.checkpointPath
    ? await perUser.registerVersion(tx, p, {
        experimentId: run.experimentId,
        endUserId: lease.endUserId!,
        path: input.checkpointPath,
        rank: a.config.perUser.rank,
        alpha: a.config.perUser.alpha,
        ...(await trainedSummary(tx, step.id)),
      })
    : null;
  await tx.batchLease.update({
    where: { id: lease.id },
    data: { ackedAt: now, step: input.step, stepId: step.id, adapterId: adapter?.adapterId ?? null },
  });
  await tx.run.update({
    where: { id: run.id },
    data: {
      lastStep: Math.max(run.lastStep, input.step),
      heartbeatAt: now,
      ...(input.weightVersion !== undefined ? { weightVersion: input.weightVersion } : {}),
    },
  });
  const points: Point[] = Object.entries(metrics).map(([name, value]) => ({ name, value, step: input.step }));
  const rows = metricRows(run.experimentId, run.id, points, now);
  if (rows.length) await tx.metricPoint.createMany({ data: rows });
  return {
    result: {
      leaseId: lease.id,
      step: input.step,
      trainingStepId: step.id,
      policyVersion: a.policyVersion,
      policyVersionStatus: "ACTIVE",
      trainedSamples: trained.count,
      lostSamples: lease.sampleIds.length - trained.count,
      replayed: false,
      adapter,
    },
    points,
  };
}

/** What a user's version trained on: how many samples, their mean reward, the newest one's turn time. */
async function trainedSummary(tx: Tx, stepId: string) {
  const rows = await tx.sample.findMany({
    where: { stepId },
    select: { reward: true, turn: { select: { createdAt: true } } },
  });
  return {
    samples: rows.length,
    meanReward: rows.length ? rows.reduce((s, r) => s + r.reward, 0) / rows.length : null,
    throughAt: rows.reduce<Date | null>((m, r) => (!m || r.turn.createdAt > m ? r.turn.createdAt : m), null),
  };
}

/** An acknowledgement already recorded: the same answer again, or a conflict if it names another step. */
async function replayedAck(
  tx: Tx,
  lease: {
    id: string;
    step: number | null;
    stepId: string | null;
    sampleIds: string[];
    endUserId: string | null;
    adapterId: string | null;
  },
  step: number,
): Promise<AckResult> {
  if (lease.step !== step) throw conflict(`Lease ${lease.id} was acknowledged at step ${lease.step}, not ${step}`);
  const ts = lease.stepId ? await tx.trainingStep.findUnique({ where: { id: lease.stepId } }) : null;
  if (!ts) throw conflict(`The step lease ${lease.id} was acknowledged with has been deleted`);
  const [trained, pv, adapter] = await Promise.all([
    tx.sample.count({ where: { leaseId: lease.id, stepId: ts.id } }),
    tx.policyVersion.findFirst({ where: { runId: ts.runId, version: ts.policyVersion }, select: { status: true } }),
    lease.adapterId
      ? tx.userAdapter.findUnique({
          where: { id: lease.adapterId },
          select: { id: true, endUserId: true, version: true, state: true },
        })
      : null,
  ]);
  return {
    leaseId: lease.id,
    step,
    trainingStepId: ts.id,
    policyVersion: ts.policyVersion,
    // A per-user step made no policy version: the base it recorded is what serves.
    policyVersionStatus: pv?.status === "ACTIVE" || lease.endUserId ? "ACTIVE" : "CANDIDATE",
    trainedSamples: trained,
    lostSamples: lease.sampleIds.length - trained,
    replayed: true,
    adapter: adapter
      ? { endUserId: adapter.endUserId, adapterId: adapter.id, version: adapter.version, state: adapter.state }
      : null,
  };
}

/**
 * The engine addresses a report names: the egress policy plus the trainer-endpoint rule (platform/egress.ts). The
 * proxy and the judge check the egress policy again when they call.
 */
async function assertEndpointsAllowed(input: ReportInputT): Promise<void> {
  for (const field of ["rolloutUrl", "prmUrl", "prmTeacherUrl"] as const) {
    const url = input[field];
    if (!url) continue;
    try {
      await assertTrainerEndpointAllowed(url);
    } catch (err) {
      if (err instanceof EgressRefusedError)
        throw badRequest(`${field} refused: ${err.message}`, [{ path: field, message: err.message }]);
      throw err;
    }
  }
}

export async function reportRun(p: Principal, runId: string, input: ReportInputT): Promise<ReportResult> {
  const run = await loadRunFor(p, runId);
  await assertEndpointsAllowed(input);
  const live = !TERMINAL_RUN_STATUSES.includes(run.status);
  const { renewed, points } = await db().$transaction(async (tx) => {
    const now = await dbNow(tx);
    // A new rollout URL moves every conversation of the experiment: recorded on the run and in the audit log.
    const before = input.rolloutUrl
      ? await tx.run.findUniqueOrThrow({ where: { id: runId }, select: { rolloutUrl: true } })
      : null;
    const moved = before && input.rolloutUrl && before.rolloutUrl !== input.rolloutUrl;
    if (moved)
      await audit(
        tx,
        p,
        "run.rolloutUrl",
        "run",
        runId,
        { rolloutUrl: before.rolloutUrl },
        { rolloutUrl: input.rolloutUrl },
      );
    await tx.run.update({
      where: { id: runId },
      data: {
        heartbeatAt: now,
        ...(input.rolloutUrl ? { rolloutUrl: input.rolloutUrl } : {}),
        ...(moved ? { rolloutUrlPrevious: before.rolloutUrl, rolloutUrlChangedAt: now } : {}),
        ...(input.prmUrl
          ? {
              prmUrl: input.prmUrl,
              prmTeacherUrl: input.prmTeacherUrl ?? null,
              prmModelPath: input.prmModelPath ?? null,
            }
          : {}),
        ...(input.weightVersion !== undefined ? { weightVersion: input.weightVersion } : {}),
        // A finished run keeps the message that explains how it ended.
        ...(input.message !== undefined && live ? { statusMessage: input.message } : {}),
      },
    });
    const asked = [...new Set(input.renewLeaseIds)];
    // A stale lease (its samples leased again) is not renewed: it is missing from `renewed`, so the trainer
    // drops the batch before it trains it (fencing, see ackBatch).
    const candidates = asked.length
      ? await tx.batchLease.findMany({ where: { id: { in: asked }, runId, ackedAt: null } })
      : [];
    const ids: string[] = [];
    for (const l of candidates) if (!(await tx.sample.count({ where: supersededSamples(l) }))) ids.push(l.id);
    const expiresAt = plusSeconds(now, input.leaseSeconds);
    if (ids.length)
      await tx.batchLease.updateMany({ where: { id: { in: ids }, runId, ackedAt: null }, data: { expiresAt } });
    const [leases, held] = ids.length
      ? await Promise.all([
          tx.batchLease.findMany({
            where: { id: { in: ids }, runId, ackedAt: null },
            select: { id: true, expiresAt: true },
          }),
          tx.sample.groupBy({ by: ["leaseId"], where: { leaseId: { in: ids }, stepId: null }, _count: { _all: true } }),
        ])
      : [[], []];
    const heldBy = new Map(held.map((h) => [h.leaseId, h._count._all]));
    const pts: Point[] = Object.entries(input.metrics).map(([name, value]) => ({
      name,
      value,
      step: input.step ?? null,
    }));
    const rows = metricRows(run.experimentId, runId, pts, now);
    if (rows.length) await tx.metricPoint.createMany({ data: rows });
    return {
      renewed: leases.map((l) => ({
        leaseId: l.id,
        expiresAt: l.expiresAt.toISOString(),
        held: heldBy.get(l.id) ?? 0,
      })),
      points: pts,
    };
  });
  await publishMetrics(run.experimentId, runId, points);
  const [{ version }, resumeAt] = await Promise.all([activeVersion(run.experimentId), resumePoint(runId)]);
  return {
    runStatus: run.status,
    stop: !live,
    paused: run.status === "PAUSED",
    renewed,
    policyVersion: version,
    ...resumeAt,
  };
}

/**
 * Where a restarted trainer of this run picks up: past the run's last recorded step, from the newest version it
 * trained that has a checkpoint (a shared policy's; a per-user run's versions are its users', named in each lease).
 */
async function resumePoint(runId: string): Promise<Pick<ReportResult, "lastStep" | "resume">> {
  const [run, newest] = await Promise.all([
    db().run.findUniqueOrThrow({ where: { id: runId }, select: { lastStep: true } }),
    db().policyVersion.findFirst({
      where: { runId, checkpointPath: { not: null } },
      orderBy: { version: "desc" },
      select: { version: true, step: true, checkpointPath: true },
    }),
  ]);
  return {
    lastStep: run.lastStep,
    resume: newest?.checkpointPath
      ? { policyVersion: newest.version, step: newest.step, checkpointPath: newest.checkpointPath }
      : null,
  };
}

export type LeaseState = "active" | "expired" | "acknowledged";

export async function listLeases(p: Principal, runId: string, input: { limit: number }) {
  await loadRunFor(p, runId);
  const now = new Date();
  const rows = await db().batchLease.findMany({
    where: { runId },
    orderBy: [{ leasedAt: "desc" }, { id: "desc" }],
    take: input.limit,
  });
  return {
    items: rows.map((l) => ({
      id: l.id,
      requestKey: l.requestKey,
      size: l.sampleIds.length,
      leasedAt: l.leasedAt.toISOString(),
      expiresAt: l.expiresAt.toISOString(),
      ackedAt: l.ackedAt?.toISOString() ?? null,
      step: l.step,
      state: (l.ackedAt ? "acknowledged" : l.expiresAt <= now ? "expired" : "active") as LeaseState,
    })),
  };
}
