// The Users view and the per-user operations: each end user's adapter chain, samples and reward trend; a
// per-user rollback; and deleting a user (adapters, turns and, through them, samples, judgments and labels),
// each in one transaction with its audit entry.
import type { z } from "zod";
import { audit } from "../access/audit";
import type { Principal } from "../access/principal";
import { loadExperimentFor } from "../access/scope";
import { db, type Prisma } from "../platform/db/client";
import { EVERYONE, ExperimentConfigSchema, type ExperimentConfig } from "../config/experimentConfig";
import { appError, conflict, notFound } from "../platform/errors";
import { firstReplyBySession, sessionsUntilStable } from "../trajectories/stableEffect";
import { adapterDirProblem, TINKER_SAMPLER_PATH } from "../platform/extensions";
import { announceAdapterChange } from "./announce";
import { heldOutTurns } from "./data";
import { rollbackServedAdapter } from "./rollback";
import { engineGateApplies } from "./engineGate";
import { trainDueUsers } from "./train";
import {
  type AdapterOwnerInput,
  type AdapterRegisterInput,
  type AdapterTrainInput,
  type EndUserInput,
  type EndUsersListInput,
} from "./schemas";

type Tx = Prisma.TransactionClient;

/** Versions of each user's adapter, oldest first, for the reward trend (at most this many per user). */
const TREND_VERSIONS = 20;

export async function listEndUsers(p: Principal, input: z.output<typeof EndUsersListInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  const [turns, labelled, adapters, sessions] = await Promise.all([
    db().turn.groupBy({
      by: ["endUserId"],
      where: { experimentId: e.id, endUserId: { not: null } },
      _count: { _all: true },
      _max: { createdAt: true },
    }),
    db().$queryRaw<{ endUserId: string; n: bigint }[]>`
      SELECT t."endUserId", count(DISTINCT t.id) AS n FROM turns t JOIN judgments j ON j."turnId" = t.id
      WHERE t."experimentId" = ${e.id} AND t."endUserId" IS NOT NULL AND t."turnType" = 'MAIN'
      GROUP BY t."endUserId"`,
    db().userAdapter.findMany({
      where: { experimentId: e.id },
      orderBy: [{ endUserId: "asc" }, { version: "asc" }],
      select: {
        id: true,
        endUserId: true,
        version: true,
        state: true,
        samples: true,
        evalScore: true,
        servedScore: true,
        meanReward: true,
        createdAt: true,
        weights: true,
      },
    }),
    firstReplyBySession(e.id),
  ]);
  const judged = new Map(labelled.map((r) => [r.endUserId, Number(r.n)]));
  const held = new Map<string, boolean[]>();
  for (const s of sessions) if (s.endUserId) held.set(s.endUserId, [...(held.get(s.endUserId) ?? []), s.held]);
  const row = (endUserId: string, turns: { count: number; judged: number; lastAt: Date | null }) => {
    const mine = adapters.filter((a) => a.endUserId === endUserId);
    const served = mine.findLast((a) => a.state === "PROMOTED") ?? null;
    return {
      endUserId,
      turns: turns.count,
      judgedTurns: turns.judged,
      lastTurnAt: turns.lastAt,
      servedVersion: served?.version ?? null,
      servedAdapterId: served?.id ?? null,
      versions: mine.length,
      trainedSamples: mine.reduce((s, a) => s + a.samples, 0),
      lastTrainedAt: mine.at(-1)?.createdAt ?? null,
      storageBytes: mine.reduce((s, a) => s + a.weights.length, 0),
      // The user's judged sessions, and how many came before three in a row whose first reply they liked.
      sessions: held.get(endUserId)?.length ?? 0,
      sessionsUntilStable: sessionsUntilStable(held.get(endUserId) ?? []),
      trend: mine.slice(-TREND_VERSIONS).map((a) => ({
        version: a.version,
        state: a.state,
        meanReward: a.meanReward,
        evalScore: a.evalScore,
        servedScore: a.servedScore,
        samples: a.samples,
        createdAt: a.createdAt,
      })),
    };
  };
  const users = turns.map((t) =>
    row(t.endUserId!, { count: t._count._all, judged: judged.get(t.endUserId!) ?? 0, lastAt: t._max.createdAt }),
  );
  // The shared adapter new users are served, trained on everyone's turns: first, with every user's turns as its own.
  const everyone =
    ExperimentConfigSchema.parse(e.config).perUser.newUsers === "shared" ||
    adapters.some((a) => a.endUserId === EVERYONE)
      ? [
          row(EVERYONE, {
            count: users.reduce((s, u) => s + u.turns, 0),
            judged: users.reduce((s, u) => s + u.judgedTurns, 0),
            lastAt: users.reduce<Date | null>(
              (m, u) => (u.lastTurnAt && (!m || u.lastTurnAt > m) ? u.lastTurnAt : m),
              null,
            ),
          }),
        ]
      : [];
  return [...everyone, ...users.sort((a, b) => (a.endUserId < b.endUserId ? -1 : 1))];
}

/**
 * Stop serving the user's current adapter: it becomes ROLLED_BACK and its parent (the version it replaced)
 * serves again; a first version rolls the user back to the base.
 */
export async function rollbackEndUser(p: Principal, input: z.output<typeof AdapterOwnerInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  const done = await db().$transaction((tx) =>
    rollbackServedAdapter(tx, p, e.id, input.endUserId, { action: "endUser.rollback" }),
  );
  if (!done) throw conflict(`user '${input.endUserId}' is served the base: there is no adapter to roll back`);
  announceAdapterChange(e.id, input.endUserId);
  return { endUserId: input.endUserId, ...done };
}

/** Delete everything of one end user in this experiment: adapters and turns (samples, judgments, labels cascade). */
export async function deleteEndUser(p: Principal, input: z.output<typeof EndUserInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  const out = await db().$transaction(async (tx) => {
    const where = { experimentId: e.id, endUserId: input.endUserId };
    const rows = await tx.turn.findMany({ where, select: { id: true, sessionId: true } });
    const turnIds = rows.map((t) => t.id);
    const adapters = await tx.userAdapter.deleteMany({ where });
    if (!turnIds.length && !adapters.count) throw notFound("End user", input.endUserId);
    const samples = await tx.sample.deleteMany({ where: { turnId: { in: turnIds } } });
    const turns = await tx.turn.deleteMany({ where: { id: { in: turnIds } } });
    // The user's sessions left without a turn were theirs alone.
    await tx.agentSession.deleteMany({
      where: { id: { in: [...new Set(rows.map((t) => t.sessionId))] }, turns: { none: {} } },
    });
    const after = { adapters: adapters.count, turns: turns.count, samples: samples.count };
    await audit(tx, p, "endUser.delete", "EndUser", `${e.id}:${input.endUserId}`, null, after);
    return { endUserId: input.endUserId, ...after };
  });
  announceAdapterChange(e.id, input.endUserId);
  return out;
}

/** Train every user with enough new samples now (the scheduler's tick, run on demand). */
export async function trainEndUsers(p: Principal, input: z.output<typeof AdapterTrainInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  const results = await trainDueUsers(e.id);
  return Object.entries(results).map(([endUserId, r]) => ({
    endUserId,
    trained: r.trained,
    version: r.trained ? r.version : null,
    state: r.trained ? r.state : null,
    samples: r.samples,
  }));
}

/** A new version of a user's chain that an engine serves from `path` (a PEFT folder), and what it trained on. */
export interface ServedAdapterVersion {
  experimentId: string;
  endUserId: string;
  path: string;
  rank: number;
  alpha: number;
  /** samples it trained on, their mean reward and the newest one's time (a trainer's lease); absent when registered by hand */
  samples?: number;
  meanReward?: number | null;
  throughAt?: Date | null;
}

/**
 * Refuses (400 `adapter_not_servable`) a version this experiment's engine cannot serve to its users: the experiment
 * must be per-user with LoRA serving (policy.loraAdapters), and the version a folder inside the operator's
 * ADAPTER_DIRS, or for a Tinker-trained experiment a Tinker sampler path (resolved by the bridge's endpoint at Tinker,
 * never a path on a disk here or on the engine's host).
 */
export async function assertServableUserAdapter(config: ExperimentConfig, path: string): Promise<void> {
  if (config.personalization !== "per-user" || config.policy.kind === "embedded" || !config.policy.loraAdapters)
    throw appError(
      "adapter_not_servable",
      "adapter folders are served by SGLang/vLLM multi-LoRA: the experiment must be per-user with policy.loraAdapters",
    );
  if (config.trainer.backend === "tinker") {
    if (!TINKER_SAMPLER_PATH.test(path))
      throw appError("adapter_not_servable", "a Tinker experiment's user version is a tinker:// sampler path", [
        { path: "path", message: "must be a tinker:// sampler path" },
      ]);
    return;
  }
  const problem = await adapterDirProblem(path);
  if (problem)
    throw appError("adapter_not_servable", `adapter folder ${problem}`, [{ path: "path", message: problem }]);
}

/**
 * The user's next version. Gated (engineGate.ts engineGateApplies: SGLang/vLLM folders or Tinker sampler paths, a
 * held-out split) and the user has a held-out turn: it is a CANDIDATE, which the engine gate step scores and promotes
 * or rejects. Otherwise (heldOutFraction 0, no held-out turn yet) it serves at once, the
 * served one SUPERSEDED so a rollback returns to it. Audited; the caller announces a PROMOTED one
 * (announceAdapterChange) once its transaction commits, and the proxies load the new folder.
 * Both ways in use it: registering by hand (below) and a trainer acknowledging a user's lease (training/leases).
 */
export async function addServedAdapterVersion(tx: Tx, p: Principal, v: ServedAdapterVersion) {
  const where = { experimentId: v.experimentId, endUserId: v.endUserId };
  const e = await tx.experiment.findUniqueOrThrow({ where: { id: v.experimentId }, select: { config: true } });
  const config = ExperimentConfigSchema.parse(e.config);
  const gated =
    engineGateApplies(config) &&
    (await heldOutTurns(v.experimentId, v.endUserId, config.perUser.heldOutFraction, { probe: true })).length > 0;
  const last = await tx.userAdapter.findFirst({ where, orderBy: { version: "desc" }, select: { version: true } });
  const served = await tx.userAdapter.findFirst({
    where: { ...where, state: "PROMOTED" },
    orderBy: { version: "desc" },
  });
  if (served && !gated)
    await tx.userAdapter.update({ where: { id: served.id }, data: { state: "SUPERSEDED", decidedAt: new Date() } });
  const row = await tx.userAdapter.create({
    data: {
      ...where,
      version: (last?.version ?? 0) + 1,
      parentId: served?.id ?? null,
      rank: v.rank,
      alpha: v.alpha,
      state: gated ? "CANDIDATE" : "PROMOTED",
      weights: Buffer.alloc(0),
      path: v.path,
      samples: v.samples ?? 0,
      meanReward: v.meanReward ?? null,
      throughAt: v.throughAt ?? null,
      decidedAt: gated ? null : new Date(),
    },
  });
  const after = { version: row.version, state: row.state, path: row.path, samples: row.samples };
  await audit(tx, p, "endUser.adapter.register", "UserAdapter", row.id, null, after);
  return { endUserId: v.endUserId, adapterId: row.id, version: row.version, state: row.state };
}

/** Register a user's adapter version trained outside this process (a PEFT folder SGLang/vLLM serves; gated, above). */
export async function registerEndUserAdapter(p: Principal, input: z.output<typeof AdapterRegisterInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  await assertServableUserAdapter(ExperimentConfigSchema.parse(e.config), input.path);
  const { endUserId, path, rank, alpha } = input;
  const out = await db().$transaction((tx) =>
    addServedAdapterVersion(tx, p, { experimentId: e.id, endUserId, path, rank, alpha }),
  );
  if (out.state === "PROMOTED") announceAdapterChange(e.id, input.endUserId);
  return out;
}
