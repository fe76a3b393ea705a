// What must hold after any fault, read from the database alone: no 2xx without exactly one turn, every
// ready turn judged exactly once per judge version, no sample trained twice, contiguous policy versions.
// Returns violations as sentences (empty = all hold) so the soak bench can print them as well.
import { db } from "../../server/platform/db/client";

export interface InvariantReport {
  violations: string[];
  counts: {
    okRequests: number;
    turns: number;
    readyTurns: number;
    judgments: number;
    samples: number;
    trainedSamples: number;
    steps: number;
    versions: number;
  };
}

const first = <T>(xs: T[], n = 5) => xs.slice(0, n).join(", ") + (xs.length > n ? ` (+${xs.length - n} more)` : "");

export async function checkInvariants(o: {
  experimentId: string;
  runId: string;
  okTurnIds: string[];
}): Promise<InvariantReport> {
  const v: string[] = [];
  const { experimentId, runId } = o;

  // 1. Every 2xx has exactly one turn (ids are primary keys, request ids unique: present = exactly one).
  const dupRequests = o.okTurnIds.filter((id, i) => o.okTurnIds.indexOf(id) !== i);
  if (dupRequests.length) v.push(`the proxy answered two requests with the same turn id: ${first(dupRequests)}`);
  const stored = new Set(
    (await db().turn.findMany({ where: { id: { in: o.okTurnIds } }, select: { id: true } })).map((t) => t.id),
  );
  const missing = o.okTurnIds.filter((id) => !stored.has(id));
  if (missing.length) v.push(`${missing.length} request(s) got a 2xx but have no turn: ${first(missing)}`);
  const turns = await db().turn.count({ where: { experimentId } });

  // 2. Ready turns (as the sweeper defines them) judged exactly once per judge version.
  const ready = await db().$queryRaw<{ id: string }[]>`
    SELECT t.id FROM turns t JOIN agent_sessions s ON s.id = t."sessionId"
    WHERE t."experimentId" = ${experimentId} AND t."turnType" = 'MAIN' AND t.status = 'OK' AND (t."nextStateAt" IS NOT NULL OR s.done)`;
  const judgments = await db().judgment.findMany({
    where: { turn: { experimentId } },
    select: { turnId: true, judgeVersion: true },
  });
  const versions = [...new Set(judgments.map((j) => j.judgeVersion))];
  const per = new Map<string, number>();
  for (const j of judgments)
    per.set(`${j.turnId} ${j.judgeVersion}`, (per.get(`${j.turnId} ${j.judgeVersion}`) ?? 0) + 1);
  const twice = [...per].filter(([, n]) => n > 1).map(([k]) => k);
  if (twice.length) v.push(`${twice.length} turn(s) judged more than once under one judge version: ${first(twice)}`);
  if (ready.length && !versions.length) v.push(`${ready.length} ready turn(s) and no judgment at all`);
  for (const jv of versions) {
    const unjudged = ready.filter((t) => !per.has(`${t.id} ${jv}`)).map((t) => t.id);
    if (unjudged.length)
      v.push(`${unjudged.length} ready turn(s) never judged under judge version ${jv}: ${first(unjudged)}`);
  }

  // 3. A judged sample trains at most once: at most one trained sample per turn, each in a step of its run.
  const samples = await db().sample.findMany({ where: { runId }, select: { turnId: true, stepId: true } });
  const trained = samples.filter((s) => s.stepId !== null);
  const trainedPerTurn = new Map<string, number>();
  for (const s of trained) trainedPerTurn.set(s.turnId, (trainedPerTurn.get(s.turnId) ?? 0) + 1);
  const retrained = [...trainedPerTurn].filter(([, n]) => n > 1).map(([t]) => t);
  if (retrained.length) v.push(`${retrained.length} turn(s) trained more than once: ${first(retrained)}`);
  const steps = await db().trainingStep.findMany({
    where: { runId },
    orderBy: { step: "asc" },
    select: { id: true, step: true, policyVersion: true },
  });
  const stepIds = new Set(steps.map((s) => s.id));
  const foreign = trained.filter((s) => !stepIds.has(s.stepId!));
  if (foreign.length) v.push(`${foreign.length} sample(s) point at a step that is not one of the run's`);
  const judgedTurns = new Set(judgments.map((j) => j.turnId));
  const unjudgedSamples = samples.filter((s) => !judgedTurns.has(s.turnId));
  if (unjudgedSamples.length) v.push(`${unjudgedSamples.length} sample(s) of turns that were never judged`);

  // 4. Steps 1..n and policy versions 1..m without gaps, each version the child of the one before.
  const stepGap = steps.findIndex((s, i) => s.step !== i + 1);
  if (stepGap >= 0) v.push(`training steps are not contiguous: ${steps.map((s) => s.step).join(",")}`);
  const pv = await db().policyVersion.findMany({
    where: { experimentId },
    orderBy: { version: "asc" },
    select: { version: true, parentVersion: true, step: true },
  });
  const pvGap = pv.findIndex((p, i) => p.version !== i + 1 || p.parentVersion !== i);
  if (pvGap >= 0)
    v.push(`policy versions are not contiguous: ${pv.map((p) => `${p.parentVersion}→${p.version}`).join(",")}`);
  const run = await db().run.findUniqueOrThrow({ where: { id: runId }, select: { lastStep: true } });
  if (run.lastStep !== steps.length) v.push(`run.lastStep is ${run.lastStep} but ${steps.length} step(s) are recorded`);

  return {
    violations: v,
    counts: {
      okRequests: o.okTurnIds.length,
      turns,
      readyTurns: ready.length,
      judgments: judgments.length,
      samples: samples.length,
      trainedSamples: trained.length,
      steps: steps.length,
      versions: pv.length,
    },
  };
}
