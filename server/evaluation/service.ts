// Evaluation procedures for tRPC and REST: eval sets (JSONL upload/download, "add to eval set" from recorded
// turns, the persona set), the per-version overview the Evaluation page charts, one evaluation's replies, a
// two-version comparison, re-requesting an evaluation, and judge–human agreement.
import type { z } from "zod";
import { db } from "../platform/db/client";
import { enqueue } from "../platform/bus/queues";
import { conflict, notFound } from "../platform/errors";
import { assertExperimentAccess, type Principal } from "../access/principal";
import { authorizeRow, loadExperimentFor } from "../access/scope";
import { audit } from "../access/audit";
import { ExperimentConfigSchema, type ExperimentConfig } from "../config/experimentConfig";
import { expectedJudgeVersion } from "../judge/worker/settings";
import { PERSONAS } from "../simulation/personas";
import { agreementWarning, judgeAgreement } from "./agreement";
import { liveRewards } from "./gate";
import { parseEvalJsonl, toEvalJsonl } from "./jsonl";
import { evaluateJobId, evaluationConfig } from "./config";
import { currentSetVersion, itemsFromTurns, personaItems, writeSetVersion } from "./sets";
import { taskEvaluationTarget, versionPassRates } from "./taskRates";
import type {
  AgreementInput,
  CompareInput,
  EvalSetAddTurnsInput,
  EvalSetGetInput,
  EvalSetListInput,
  EvalSetUploadInput,
  EvaluationGetInput,
  EvaluationListInput,
  PersonaSetInput,
  RequestEvaluationInput,
  TaskPassRatesInput,
} from "./schemas";

type In<T extends z.ZodType> = z.output<T>;

export async function listEvalSets(p: Principal, input: In<typeof EvalSetListInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  const sets = await db().evalSet.findMany({
    where: { experimentId: e.id },
    orderBy: { createdAt: "asc" },
    include: { versions: { orderBy: { version: "desc" } } },
  });
  return sets.map((s) => ({
    id: s.id,
    name: s.name,
    description: s.description,
    latestVersion: s.latestVersion,
    versions: s.versions.map((v) => ({
      id: v.id,
      version: v.version,
      source: v.source,
      items: v.itemCount,
      createdAt: v.createdAt.toISOString(),
    })),
  }));
}

async function setVersionOf(p: Principal, input: In<typeof EvalSetGetInput>) {
  const set = authorizeRow(
    p,
    "Eval set",
    input.id,
    await db().evalSet.findUnique({ where: { id: input.id } }),
    (s) => s.experimentId,
  );
  const version = input.version ?? set.latestVersion;
  const sv = await db().evalSetVersion.findUnique({
    where: { setId_version: { setId: set.id, version } },
    include: { items: { orderBy: { index: "asc" } } },
  });
  if (!sv) throw notFound("Eval set version", `${set.name} v${version}`);
  return { set, sv };
}

export async function getEvalSet(p: Principal, input: In<typeof EvalSetGetInput>) {
  const { set, sv } = await setVersionOf(p, input);
  return {
    id: set.id,
    name: set.name,
    version: sv.version,
    setVersionId: sv.id,
    source: sv.source,
    items: sv.items.map((i) => ({
      id: i.id,
      key: i.key,
      messages: i.messages,
      reference: i.reference,
      rubric: i.rubric,
      persona: i.persona,
      sourceTurnId: i.sourceTurnId,
    })),
  };
}

export async function downloadEvalSet(p: Principal, input: In<typeof EvalSetGetInput>) {
  const { set, sv } = await setVersionOf(p, input);
  return {
    name: set.name,
    version: sv.version,
    jsonl: toEvalJsonl(sv.items.map((i) => ({ ...i, messages: i.messages as Record<string, unknown>[] }))),
  };
}

async function written(
  p: Principal,
  experimentId: string,
  what: string,
  r: Awaited<ReturnType<typeof writeSetVersion>>,
) {
  await db().$transaction((tx) => audit(tx, p, `evalSet.${what}`, "experiment", experimentId, null, r));
  return r;
}

/** Upload JSONL as the set's next version; every bad line is a 400 naming the line, and nothing is written. */
export async function uploadEvalSet(p: Principal, input: In<typeof EvalSetUploadInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  const items = parseEvalJsonl(input.jsonl);
  return written(
    p,
    e.id,
    "upload",
    await writeSetVersion({
      experimentId: e.id,
      name: input.name,
      description: input.description,
      source: "upload",
      items,
      mode: input.mode,
    }),
  );
}

/** "Add to eval set": each recorded turn's request becomes a held-out prompt (appended as a new set version). */
export async function addTurnsToEvalSet(p: Principal, input: In<typeof EvalSetAddTurnsInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  const items = await itemsFromTurns(e.id, input.turnIds, {
    rubric: input.rubric,
    useReplyAsReference: input.useReplyAsReference,
  });
  return written(
    p,
    e.id,
    "addTurns",
    await writeSetVersion({ experimentId: e.id, name: input.name, source: "turns", items, mode: "append" }),
  );
}

/**
 * The persona set: the held-out questions of the experiment's simulated personas (all personas when none is set), or
 * the questions those users ask (`questions: "asked"`, a gate set).
 */
export async function createPersonaEvalSet(
  p: Principal | null,
  input: Omit<In<typeof PersonaSetInput>, "questions"> & Partial<Pick<In<typeof PersonaSetInput>, "questions">>,
) {
  const e = p
    ? await loadExperimentFor(p, input.experimentId)
    : await db().experiment.findUniqueOrThrow({ where: { id: input.experimentId } });
  const sim = await db().simulationControl.findUnique({ where: { experimentId: e.id }, select: { personas: true } });
  const personas = input.personas ?? (sim?.personas.length ? sim.personas : PERSONAS.map((x) => x.id));
  const r = await writeSetVersion({
    experimentId: e.id,
    name: input.name,
    description:
      input.questions === "asked"
        ? `The questions ${personas.join(", ")} ask (the simulated users' own, none held out)`
        : `Held-out questions of ${personas.join(", ")} (never asked by the simulated users)`,
    source: "persona",
    items: personaItems(personas, input.questions),
    mode: "replace",
  });
  return p ? written(p, e.id, "persona", r) : r;
}

/** The Evaluation page: every version's eval score (on the current set version) next to its training reward. */
export async function evaluationOverview(p: Principal, input: In<typeof EvaluationListInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  const config = ExperimentConfigSchema.parse(e.config);
  const current = await currentSetVersion(e.id, config.evaluation.set);
  // serving.gate.set: the gate's own set, when it is another than the reported one
  const gateSet = config.serving.gate.set ? await currentSetVersion(e.id, config.serving.gate.set) : null;
  const gateSvId = gateSet && gateSet.setVersion.id !== current?.setVersion.id ? gateSet.setVersion.id : null;
  const [versions, evaluations] = await Promise.all([
    db().policyVersion.findMany({ where: { experimentId: e.id }, orderBy: { version: "desc" }, take: input.limit }),
    db().evaluation.findMany({
      where: { experimentId: e.id },
      orderBy: { createdAt: "desc" },
      take: input.limit * 4,
      include: { setVersion: { select: { version: true, set: { select: { name: true } } } } },
    }),
  ]);
  const nums = [0, ...versions.map((v) => v.version)];
  const rewards = await liveRewards(e.id, nums);
  const onSet = (svId: string | null | undefined) =>
    new Map(
      evaluations.filter((x) => svId && x.setVersionId === svId && x.draw === 0).map((x) => [x.policyVersion, x]),
    );
  const onCurrent = onSet(current?.setVersion.id);
  // What the gate read: on its own set, or under serving.gate.confirm on the draw it compares on (each version's latest)
  const gateReads = gateSvId ?? (config.serving.gate.confirm ? current?.setVersion.id : null);
  const onGate = new Map<number, (typeof evaluations)[number]>();
  for (const x of evaluations)
    if (gateReads && x.setVersionId === gateReads && x.draw >= (onGate.get(x.policyVersion)?.draw ?? 0))
      onGate.set(x.policyVersion, x);
  const served = versions.find((v) => v.status === "ACTIVE")?.version ?? 0;
  const view = (x: (typeof evaluations)[number]) => ({
    id: x.id,
    version: x.policyVersion,
    status: x.status,
    grader: x.grader,
    graderVersion: x.graderVersion,
    mean: x.mean,
    ciLow: x.ciLow,
    ciHigh: x.ciHigh,
    items: x.items,
    replies: x.replies,
    promptTokens: x.promptTokens,
    replyTokens: x.replyTokens,
    durationMs: x.durationMs,
    error: x.error,
    set: `${x.setVersion.set.name} v${x.setVersion.version}`,
    setVersionId: x.setVersionId,
    draw: x.draw,
    finishedAt: x.finishedAt?.toISOString() ?? null,
  });
  const rows = [...nums]
    .sort((a, b) => a - b)
    .map((n) => {
      const v = versions.find((x) => x.version === n);
      const ev = onCurrent.get(n);
      const r = rewards.get(n);
      return {
        version: n,
        status: n === 0 ? (served === 0 ? "ACTIVE" : "BASE") : v!.status,
        step: v?.step ?? null,
        gateReason: v?.gateReason ?? null,
        evaluation: ev ? view(ev) : null,
        /**
         * the score the gate read: on its own set (serving.gate.set), on the latest draw of seeds it compared this
         * version on (serving.gate.confirm); null when it reads the reported score
         */
        gateEvaluation: onGate.has(n) ? view(onGate.get(n)!) : null,
        trainingReward: r ? r.reward : null,
        rewardTurns: r?.turns ?? 0,
      };
    });
  return {
    experimentId: e.id,
    servedVersion: served,
    promotion: config.serving.promotion,
    gate: config.serving.gate,
    evaluationEnabled: config.evaluation.enabled,
    set: current
      ? {
          id: current.set.id,
          name: current.set.name,
          version: current.setVersion.version,
          setVersionId: current.setVersion.id,
          items: current.setVersion.itemCount,
        }
      : null,
    /** the gate's own set (serving.gate.set), when it is another than `set`; named but not created yet: missing */
    gateSet: gateSet
      ? gateSvId
        ? { name: gateSet.set.name, version: gateSet.setVersion.version, items: gateSet.setVersion.itemCount }
        : null
      : config.serving.gate.set
        ? { name: config.serving.gate.set, version: null, items: 0 }
        : null,
    versions: rows,
    candidates: rows
      .filter((r) => r.status === "CANDIDATE")
      .map((r) => ({ version: r.version, reason: r.gateReason, evaluation: r.gateEvaluation ?? r.evaluation })),
    recent: evaluations.slice(0, 20).map(view),
  };
}

export async function getEvaluation(p: Principal, input: In<typeof EvaluationGetInput>) {
  const ev = authorizeRow(
    p,
    "Evaluation",
    input.id,
    await db().evaluation.findUnique({ where: { id: input.id } }),
    (x) => x.experimentId,
  );
  const scores = await db().evalScore.findMany({
    where: { evaluationId: ev.id },
    orderBy: [{ item: { index: "asc" } }, { sample: "asc" }],
    include: { item: { select: { key: true, index: true } } },
  });
  return {
    ...ev,
    createdAt: ev.createdAt.toISOString(),
    scores: scores.map((s) => ({
      key: s.item.key,
      sample: s.sample,
      seed: s.seed,
      reply: s.reply,
      score: s.score,
      detail: s.detail,
      replyTokens: s.replyTokens,
      latencyMs: s.latencyMs,
    })),
  };
}

/** Two versions on the same prompts: each item's replies and grades side by side. */
export async function compareVersions(p: Principal, input: In<typeof CompareInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  const both = await db().evaluation.findMany({
    where: {
      experimentId: e.id,
      draw: 0,
      policyVersion: { in: [input.a, input.b] },
      ...(input.setVersionId ? { setVersionId: input.setVersionId } : {}),
    },
    orderBy: { createdAt: "desc" },
  });
  const a = both.find((x) => x.policyVersion === input.a);
  const b = a && both.find((x) => x.policyVersion === input.b && x.setVersionId === a.setVersionId);
  if (!a || !b)
    throw conflict(`Versions ${input.a} and ${input.b} have no evaluations on a common eval set version yet`);
  const items = await db().evalItem.findMany({
    where: { setVersionId: a.setVersionId },
    orderBy: { index: "asc" },
    include: { scores: { where: { evaluationId: { in: [a.id, b.id] } }, orderBy: { sample: "asc" } } },
  });
  const side = (evaluationId: string, scores: (typeof items)[number]["scores"]) => {
    const mine = scores.filter((s) => s.evaluationId === evaluationId);
    return {
      mean: mine.length ? mine.reduce((x, s) => x + s.score, 0) / mine.length : null,
      replies: mine.map((s) => ({ sample: s.sample, reply: s.reply, score: s.score, detail: s.detail })),
    };
  };
  return {
    setVersionId: a.setVersionId,
    a: {
      version: a.policyVersion,
      mean: a.mean,
      ciLow: a.ciLow,
      ciHigh: a.ciHigh,
      grader: a.grader,
      graderVersion: a.graderVersion,
    },
    b: {
      version: b.policyVersion,
      mean: b.mean,
      ciLow: b.ciLow,
      ciHigh: b.ciHigh,
      grader: b.grader,
      graderVersion: b.graderVersion,
    },
    items: items.map((i) => ({
      key: i.key,
      messages: i.messages,
      persona: i.persona,
      a: side(a.id, i.scores),
      b: side(b.id, i.scores),
    })),
  };
}

/**
 * Evaluate a version (again) on the current set version: its old evaluation there is replaced. An environment
 * experiment (`evaluation.tasks`) runs the version's held-out episodes again instead (its old ones are deleted).
 */
export async function requestEvaluation(p: Principal, input: In<typeof RequestEvaluationInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  const config = await evaluationConfig(e.id);
  if (config?.evaluation.tasks) return requestTaskEvaluation(p, e.id, config.evaluation.tasks, input.version);
  const current = config && (await currentSetVersion(e.id, config.evaluation.set));
  if (!current)
    throw conflict("This experiment has no eval set yet: upload one, add turns to one, or create the persona set");
  await assertVersionExists(e.id, input.version);
  await db().$transaction(async (tx) => {
    await tx.evaluation.deleteMany({
      // the common draw only: the gate's fresh draws (serving.gate.confirm) are what it compared and promoted on
      where: { experimentId: e.id, policyVersion: input.version, setVersionId: current.setVersion.id, draw: 0 },
    });
    await audit(tx, p, "evaluation.request", "experiment", e.id, null, {
      version: input.version,
      setVersionId: current.setVersion.id,
    });
  });
  const jobId = `${evaluateJobId(e.id, input.version, current.setVersion.id)}_${Date.now()}`;
  await enqueue(
    "evaluate",
    { experimentId: e.id, version: input.version, setVersionId: current.setVersion.id, target: "evalSet" },
    jobId,
  );
  return { queued: true, version: input.version, setVersionId: current.setVersion.id };
}

async function assertVersionExists(experimentId: string, version: number) {
  if (
    version > 0 &&
    !(await db().policyVersion.findUnique({ where: { experimentId_version: { experimentId, version } } }))
  )
    throw notFound("Policy version", String(version));
}

async function requestTaskEvaluation(
  p: Principal,
  experimentId: string,
  tasks: NonNullable<ExperimentConfig["evaluation"]["tasks"]>,
  version: number,
) {
  const target = await taskEvaluationTarget(experimentId, tasks);
  if (!target)
    throw conflict(
      `evaluation.tasks names task set ${tasks.taskSet} and environment ${tasks.environment}: import the one, create the other`,
    );
  await assertVersionExists(experimentId, version);
  const setVersionId = target.setVersion.id;
  await db().$transaction(async (tx) => {
    await tx.episode.deleteMany({
      where: { experimentId, policyVersion: version, task: { setVersionId } },
    });
    await audit(tx, p, "evaluation.request", "experiment", experimentId, null, {
      version,
      taskSetVersionId: setVersionId,
    });
  });
  const jobId = `${evaluateJobId(experimentId, version, setVersionId)}_${Date.now()}`;
  await enqueue("evaluate", { experimentId, version, setVersionId, target: "tasks" }, jobId);
  return { queued: true, version, setVersionId };
}

/**
 * An environment experiment's held-out evaluation (`evaluation.tasks`): per policy version its pass@1 (the
 * gate's score, Wilson interval) and pass@k over the held-out tasks, with the version's status and gate reason.
 * `configured` false: the experiment evaluates on an eval set instead.
 */
export async function taskPassRates(p: Principal, input: In<typeof TaskPassRatesInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  const tasks = ExperimentConfigSchema.parse(e.config).evaluation.tasks;
  const none = { configured: !!tasks, k: tasks?.k ?? null, taskSet: null, environment: null, heldOutTasks: 0 };
  if (!tasks) return { ...none, versions: [] };
  const target = await taskEvaluationTarget(e.id, tasks);
  if (!target) return { ...none, versions: [] };
  const [rates, heldOutTasks] = await Promise.all([
    versionPassRates(e.id, target.setVersion.id, tasks.k),
    db().task.count({ where: { setVersionId: target.setVersion.id, split: "heldout" } }),
  ]);
  const pvs = await db().policyVersion.findMany({
    where: { experimentId: e.id, version: { in: rates.map((r) => r.version) } },
    select: { version: true, status: true, gateReason: true },
  });
  const pv = new Map(pvs.map((v) => [v.version, v]));
  return {
    configured: true,
    k: tasks.k,
    taskSet: { id: target.set.id, name: target.set.name, version: target.setVersion.version },
    environment: { id: target.environment.id, name: target.environment.name },
    heldOutTasks,
    versions: rates.map((r) => ({
      ...r,
      status: pv.get(r.version)?.status ?? (r.version === 0 ? "BASE" : null),
      gateReason: pv.get(r.version)?.gateReason ?? null,
    })),
  };
}

/** Judge–human agreement per judge version, and the warning for the experiment's current judge. */
export async function agreement(p: Principal, input: In<typeof AgreementInput>) {
  const e = await loadExperimentFor(p, input.experimentId);
  assertExperimentAccess(p, e.id);
  const config = ExperimentConfigSchema.parse(e.config);
  const perVersion = await judgeAgreement(e.id, { disagreements: input.disagreements });
  const currentJudge = expectedJudgeVersion(config);
  const current = perVersion.find((a) => a.judgeVersion === currentJudge);
  return {
    currentJudgeVersion: currentJudge,
    thresholds: config.evaluation.agreement,
    warning: agreementWarning(current, config.evaluation.agreement),
    judges: perVersion,
  };
}
