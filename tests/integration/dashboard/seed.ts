// Seeds recorded conversations the way the proxy, judge and trainer store them (compact deltas, blobs,
// judgments with votes, labels), straight through Prisma, so dashboard tests do not depend on those workers.
import { randomBytes } from "node:crypto";
import { db, type Prisma } from "../../../server/platform/db/client";
import { ExperimentConfigSchema, type ExperimentConfigInput } from "../../../server/experiments/config";
import { blobOf } from "../../../server/recording/compact";

export const rid = (p = "x") => `${p}-${randomBytes(5).toString("hex")}`;

export async function seedExperiment(config: ExperimentConfigInput = {}) {
  const slug = rid("dash");
  return db().experiment.create({
    data: { slug, name: `Dashboard ${slug}`, config: ExperimentConfigSchema.parse(config) as unknown as Prisma.InputJsonValue },
  });
}

export async function seedRun(experimentId: string, number = 1) {
  return db().run.create({ data: { experimentId, number, config: {}, status: "RUNNING", trainerBackend: "embedded" } });
}

export interface TurnSpec {
  user: string;
  reply: string;
  /** Next state (the following user message); null = none arrived. */
  next?: string | null;
  turnType?: "MAIN" | "SIDE";
  status?: "OK" | "FAILED";
  policyVersion?: number;
  runId?: string | null;
  createdAt?: Date;
  tokenIds?: number[];
  logprobs?: number[];
}

/**
 * A session whose main lane holds the specs in order. Each turn's request is system + all earlier
 * user/assistant messages + its user message, stored as the proxy stores it: a system blob and deltas.
 */
export async function seedSession(experimentId: string, specs: TurnSpec[], opts: { externalId?: string; system?: string; simulated?: boolean } = {}) {
  const system = blobOf("system", { role: "system", content: opts.system ?? "You are a helpful assistant." });
  await db().blob.upsert({ where: { hash: system.hash }, create: { hash: system.hash, kind: "system", content: system.content as Prisma.InputJsonValue, bytes: system.bytes }, update: {} });
  const session = await db().agentSession.create({
    data: { experimentId, externalId: opts.externalId ?? rid("ext"), simulated: opts.simulated ?? false, turnCount: specs.length },
  });
  const turns = [];
  let laneLength = { MAIN: 0, SIDE: 0 };
  let previousReply: Record<"MAIN" | "SIDE", string | null> = { MAIN: null, SIDE: null };
  for (const [index, spec] of specs.entries()) {
    const lane = spec.turnType ?? "MAIN";
    const delta = [...(previousReply[lane] !== null ? [{ role: "assistant", content: previousReply[lane] }] : []), { role: "user", content: spec.user }];
    const offset = laneLength[lane];
    laneLength = { ...laneLength, [lane]: offset + delta.length };
    previousReply = { ...previousReply, [lane]: spec.reply };
    const next = spec.next === undefined ? (specs[index + 1]?.user ?? null) : spec.next;
    const t = await db().turn.create({
      data: {
        requestId: rid("req"),
        experimentId,
        sessionId: session.id,
        runId: spec.runId ?? null,
        index,
        turnType: lane,
        status: spec.status ?? "OK",
        systemHash: system.hash,
        messagesOffset: offset,
        messagesDelta: delta,
        content: spec.reply,
        tokenIds: spec.tokenIds ?? [],
        logprobs: spec.logprobs ?? [],
        policyVersion: spec.policyVersion ?? 0,
        nextState: next === null ? undefined : { role: "user", content: next },
        nextStateRole: next === null ? null : "user",
        nextStateAt: next === null ? null : new Date(),
        createdAt: spec.createdAt,
      },
    });
    turns.push(t);
  }
  return { session, turns };
}

export interface JudgmentSpec {
  score: -1 | 0 | 1;
  votes: (number | null)[];
  hint?: string | null;
  teacherLogprobs?: number[];
  dispatch?: "RL" | "OPD" | "BOTH" | null;
  excluded?: boolean;
  excludeReason?: string | null;
  /** Defaults to a random version; pass the experiment's current one to keep a running judge worker away. */
  judgeVersion?: string;
}

export async function seedJudgment(turnId: string, j: JudgmentSpec) {
  return db().judgment.create({
    data: {
      turnId,
      judgeVersion: j.judgeVersion ?? rid("jv"),
      judgeKind: "heuristic",
      model: "heuristic",
      promptVersion: "test",
      score: j.score,
      evalScore: j.votes.filter((v): v is number => v !== null).reduce((a, b) => a + b, 0) / Math.max(1, j.votes.filter((v) => v !== null).length),
      hint: j.hint ?? null,
      hintAccepted: !!j.hint,
      teacherLogprobs: j.teacherLogprobs ?? [],
      dispatch: j.dispatch === undefined ? (j.score === 0 ? null : "RL") : j.dispatch,
      excluded: j.excluded ?? j.score === 0,
      excludeReason: j.excludeReason ?? (j.score === 0 ? "zero_score" : null),
      votes: {
        create: j.votes.map((value, index) => ({
          kind: "eval",
          index,
          raw: value === null ? "garbage" : `Reasoning for vote ${index}… \\boxed{${value}}`,
          value,
          error: value === null ? "unparsable answer" : null,
        })),
      },
    },
  });
}

export async function seedUserFeedback(turnId: string, value: 1 | -1) {
  return db().label.create({ data: { turnId, source: "USER", value } });
}
