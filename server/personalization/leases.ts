// Per-user leases: a per-user experiment's external trainer (hf-local writing PEFT folders, Tinker's clients) trains
// one adapter per end user, so each lease holds ONE user's samples only and names that user. This is the privacy
// boundary on the lease path (as personalization/data.ts is for the embedded trainer): a sample is picked by its
// own turn's endUserId, and a sample of nobody (no identity on the turn) is never leased in a per-user experiment.
//
// Which user: the per-user scheduler's fair share (personalization/schedule.ts planTick, one definition): users
// with at least `minSamples` (and the trainer's minSize) leasable samples, inside the experiment's window and idle
// rule, least recently trained first, then longest waiting. A user's held-out turns (personalization/data.ts
// isHeldOut) are never leased. A version takes at most `maxSamplesPerVersion` of the user's oldest samples.
//
// A per-user lease also names the user's adapter state (userAdapterState): the served version a restarted trainer
// resumes the user from, and the latest version number it numbers its next folder past.
//
// The lease service (training/leases/service.ts) takes this as `PerUserLeasing`, wired by the gateway, so training/
// does not import personalization/ (which reads training/'s prompt rendering).
import type { ExperimentConfig } from "../config/experimentConfig";
import { db, type Prisma } from "../platform/db/client";
import type { LeasePicker, PerUserLeasing, Tx } from "../training/leases/service";
import type { LeasedUserAdapter } from "../training/leases/schemas";
import { announceAdapterChange } from "./announce";
import { isHeldOut } from "./data";
import { planTick, type Candidate } from "./schedule";
import { addServedAdapterVersion, assertServableUserAdapter } from "./service";

interface Leasable {
  id: string;
  endUserId: string;
  createdAt: Date;
}

/** The run's free samples a per-user lease may hand out: a user's, not held out; oldest first. */
async function leasableSamples(
  client: Pick<Tx, "sample">,
  free: Prisma.SampleWhereInput,
  config: ExperimentConfig,
): Promise<Leasable[]> {
  const rows = await client.sample.findMany({
    where: { AND: [free, { turn: { endUserId: { not: null } } }] },
    orderBy: [{ turn: { createdAt: "asc" } }, { id: "asc" }],
    select: { id: true, turnId: true, turn: { select: { endUserId: true, createdAt: true } } },
  });
  return rows
    .filter((r) => !isHeldOut(r.turnId, config.perUser.heldOutFraction))
    .map((r) => ({ id: r.id, endUserId: r.turn.endUserId!, createdAt: r.turn.createdAt }));
}

/** One user's samples (the fair-share pick), or null when no user is due. */
function perUserPicker(
  experimentId: string,
  config: ExperimentConfig,
  input: { size: number; minSize: number },
  freeWhere: (runId: string, now: Date) => Prisma.SampleWhereInput,
): LeasePicker {
  return async (tx, runId, now) => {
    const byUser = new Map<string, Leasable[]>();
    for (const s of await leasableSamples(tx, freeWhere(runId, now), config))
      byUser.set(s.endUserId, [...(byUser.get(s.endUserId) ?? []), s]);
    if (!byUser.size) return null;
    const users = [...byUser.keys()];
    const [trained, turns] = await Promise.all([
      tx.userAdapter.groupBy({
        by: ["endUserId"],
        where: { experimentId, endUserId: { in: users } },
        _max: { createdAt: true },
      }),
      tx.turn.groupBy({
        by: ["endUserId"],
        where: { experimentId, endUserId: { in: users } },
        _max: { createdAt: true },
      }),
    ]);
    const lastTrained = new Map(trained.map((t) => [t.endUserId, t._max.createdAt]));
    const lastTurn = new Map(turns.map((t) => [t.endUserId!, t._max.createdAt]));
    const rules = { ...config.perUser, minSamples: Math.max(config.perUser.minSamples, input.minSize) };
    const candidates: Candidate[] = users.map((endUserId) => ({
      experimentId,
      endUserId,
      pending: byUser.get(endUserId)!.length,
      waitingSince: byUser.get(endUserId)![0]!.createdAt,
      lastTrainedAt: lastTrained.get(endUserId) ?? null,
      lastTurnAt: lastTurn.get(endUserId) ?? null,
      rules,
    }));
    // No per-minute cap here: an external trainer's pace is its GPU's (TRAINER_PER_USER_MAX_PER_MINUTE is the train
    // worker's budget for the embedded engine).
    const [chosen] = planTick(candidates, { now, trainedLastMinute: 0, maxPerMinute: 0 }).train;
    if (!chosen) return null;
    const take = Math.min(input.size, config.perUser.maxSamplesPerVersion);
    return {
      sampleIds: byUser
        .get(chosen.endUserId)!
        .slice(0, take)
        .map((s) => s.id),
      endUserId: chosen.endUserId,
    };
  };
}

/**
 * The leased user's adapter state, for a trainer that no longer holds the user's weights (restarted): the served
 * (PROMOTED) version it resumes from, and the latest version number over all states (candidates, rolled back,
 * superseded), past which it numbers its next folder.
 */
async function userAdapterState(experimentId: string, endUserId: string): Promise<LeasedUserAdapter> {
  const where = { experimentId, endUserId };
  const [served, latest] = await Promise.all([
    db().userAdapter.findFirst({
      where: { ...where, state: "PROMOTED" },
      orderBy: { version: "desc" },
      select: { version: true, path: true },
    }),
    db().userAdapter.aggregate({ where, _max: { version: true } }),
  ]);
  return { served, latestVersion: latest._max.version ?? 0 };
}

/** What the lease service needs of per-user personalization (injected: see the header). */
export const perUserLeasing: PerUserLeasing = {
  picker: perUserPicker,
  adapterState: userAdapterState,
  leasableCount: async (client, free, config) => (await leasableSamples(client, free, config)).length,
  assertServable: assertServableUserAdapter,
  registerVersion: addServedAdapterVersion,
  announce: announceAdapterChange,
};
