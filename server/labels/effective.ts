// What training does with a turn, after every human label: the reviewer's relabel beats the user's explicit
// feedback, which beats the judge (server/labels/precedence.ts), and the winning value goes through the same
// combine dispatch the judge used (server/judge/core/dispatch.ts). The trainer calls effectiveLabelsForTurns
// when it builds a batch, so a relabel made in the review queue changes the very next batch.
import { z } from "zod";
import { db, type Prisma } from "../platform/db/client";
import { dispatchTurn } from "../judge/core/dispatch";
import { hintCandidates } from "../judge/core/vote";
import { episodeLabelsForTurns } from "./episodes";
import { effectiveLabel, latestLabels } from "./precedence";
import type { TrainingLabel } from "./trainingLabel";

export const EXCLUDE = {
  notJudged: "not_judged",
  sideTurn: "side_turn",
  failedTurn: "failed_turn",
  reviewer: "reviewer_excluded",
} as const;

const MethodSchema = z
  .object({
    method: z.enum(["grpo", "opd", "combine"]).catch("combine"),
    hyper: z.object({ hintMemory: z.boolean().catch(false) }).catch({ hintMemory: false }),
  })
  .catch({ method: "combine", hyper: { hintMemory: false } });

type Reader = Pick<
  Prisma.TransactionClient,
  "turn" | "judgment" | "label" | "experiment" | "episodeStep" | "$queryRaw"
>;

interface Remembered {
  hint: string;
  fromTurnId: string;
}

/**
 * Hint memory: for each turn of an end user, the accepted judge hint of that user's latest earlier turn in the same
 * experiment (by when the turns were served; the turns' (experimentId, endUserId, createdAt) index answers it).
 */
async function rememberedHints(turnIds: readonly string[], client: Reader): Promise<Map<string, Remembered>> {
  if (!turnIds.length) return new Map();
  const rows = await client.$queryRaw<{ turnId: string; fromTurnId: string; hint: string }[]>`
    SELECT t.id AS "turnId", h."turnId" AS "fromTurnId", h.hint
    FROM turns t
    JOIN LATERAL (
      SELECT j."turnId", j.hint FROM turns u JOIN judgments j ON j."turnId" = u.id
      WHERE u."experimentId" = t."experimentId" AND u."endUserId" = t."endUserId" AND u."createdAt" < t."createdAt"
        AND j."hintAccepted" AND j.hint IS NOT NULL
      ORDER BY u."createdAt" DESC, j."createdAt" DESC LIMIT 1
    ) h ON true
    WHERE t.id = ANY(${[...turnIds]}::text[]) AND t."endUserId" IS NOT NULL`;
  return new Map(rows.map((r) => [r.turnId, { hint: r.hint, fromTurnId: r.fromTurnId }]));
}

const CHUNK = 5000;

/** One entry per known turn id (unknown ids are absent from the map). Works inside a transaction too. */
export async function effectiveLabelsForTurns(
  turnIds: readonly string[],
  client: Reader = db(),
): Promise<Map<string, TrainingLabel>> {
  const out = new Map<string, TrainingLabel>();
  const ids = [...new Set(turnIds)];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    const [turns, judgments, labels] = await Promise.all([
      client.turn.findMany({
        where: { id: { in: chunk } },
        select: { id: true, experimentId: true, turnType: true, status: true, nextState: true, endUserId: true },
      }),
      client.judgment.findMany({
        where: { turnId: { in: chunk } },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        select: {
          id: true,
          turnId: true,
          score: true,
          hint: true,
          hintAccepted: true,
          teacherLogprobs: true,
          votes: { where: { kind: "hint" }, orderBy: { index: "asc" }, select: { value: true, hint: true } },
        },
      }),
      client.label.findMany({
        where: { turnId: { in: chunk }, source: { in: ["REVIEWER", "USER"] } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { id: true, turnId: true, source: true, value: true, hint: true, exclude: true, createdAt: true },
      }),
    ]);
    const experimentIds = [...new Set(turns.map((t) => t.experimentId))];
    const experiments = await client.experiment.findMany({
      where: { id: { in: experimentIds } },
      select: { id: true, config: true },
    });
    const settings = new Map(experiments.map((e) => [e.id, MethodSchema.parse(e.config)]));
    const remembered = await rememberedHints(
      turns
        .filter((t) => {
          const s = settings.get(t.experimentId);
          return t.endUserId !== null && s?.hyper.hintMemory && s.method !== "grpo";
        })
        .map((t) => t.id),
      client,
    );
    const latestJudgment = new Map<string, (typeof judgments)[number]>();
    for (const j of judgments) if (!latestJudgment.has(j.turnId)) latestJudgment.set(j.turnId, j);
    const labelsByTurn = new Map<string, typeof labels>();
    for (const l of labels) labelsByTurn.set(l.turnId, [...(labelsByTurn.get(l.turnId) ?? []), l]);

    // An agent episode's turn trains on its step advantage, whatever a judge said of it.
    const episodes = await episodeLabelsForTurns(chunk, client);
    for (const t of turns) {
      const episode = episodes.get(t.id);
      if (episode) {
        out.set(t.id, episode);
        continue;
      }
      out.set(
        t.id,
        decide(
          t,
          settings.get(t.experimentId)?.method ?? "combine",
          latestJudgment.get(t.id) ?? null,
          labelsByTurn.get(t.id) ?? [],
          remembered.get(t.id) ?? null,
        ),
      );
    }
  }
  return out;
}

type TurnFacts = {
  id: string;
  experimentId: string;
  turnType: "MAIN" | "SIDE";
  status: "OK" | "FAILED";
  nextState: unknown;
};
type JudgmentFacts = {
  id: string;
  score: number;
  hint: string | null;
  hintAccepted: boolean;
  teacherLogprobs: number[];
  votes: { value: number | null; hint: string | null }[];
};
type LabelFacts = {
  id: string;
  source: "REVIEWER" | "USER" | "JUDGE";
  value: number;
  hint: string | null;
  exclude: boolean | null;
  createdAt: Date;
};

function decide(
  t: TurnFacts,
  method: "grpo" | "opd" | "combine",
  j: JudgmentFacts | null,
  labels: LabelFacts[],
  remembered: Remembered | null,
): TrainingLabel {
  const base = { turnId: t.id, experimentId: t.experimentId, judgmentId: j?.id ?? null };
  const none = (reason: string): TrainingLabel => ({
    ...base,
    value: null,
    source: null,
    labelId: null,
    hint: null,
    hintFromTurnId: null,
    needsTeacherRescore: false,
    teacherLogprobs: null,
    kind: null,
    reward: 0,
    excluded: true,
    excludeReason: reason,
  });
  if (t.turnType === "SIDE") return none(EXCLUDE.sideTurn);
  if (t.status === "FAILED") return none(EXCLUDE.failedTurn);
  const { reviewer, user } = latestLabels(labels);
  if (!j && !reviewer && !user) return none(EXCLUDE.notJudged);

  const label = effectiveLabel({ reviewer, user, judge: { value: j?.score ?? 0 } });
  const judgeHint = j?.hintAccepted && j.hint ? j.hint : null;
  // A turn with no hint of its own borrows the user's latest accepted one (only passed in with hint memory on).
  const own = label.hint ?? judgeHint;
  const hint = own ?? remembered?.hint ?? null;
  const hintFromTurnId = own === null && remembered ? remembered.fromTurnId : null;
  const needsTeacherRescore = hint !== null && hint !== judgeHint;
  const teacherLogprobs = !needsTeacherRescore && hint !== null && j?.teacherLogprobs.length ? j.teacherLogprobs : null;
  const candidates = judgeHint !== null && hint === judgeHint ? hintCandidates(j!.votes).map((c) => c.hint) : [];
  // A human label is evidence in itself: the "no next state" exclusion protects only the judge's guess.
  const human = label.source !== "JUDGE";
  const dispatch = dispatchTurn({
    method,
    hasNextState: human || (t.nextState !== null && t.nextState !== undefined),
    score: clampVote(label.value),
    hintUsable: teacherLogprobs !== null,
  });
  // The reviewer's exclude: true forces exclusion; false lifts the dispatch's where a sample can still be
  // trained: a 0 is then an RL sample at reward 0 (it counts in the batch with zero advantage, like the
  // reference's at-least-one rule), but an OPD sample without teacher log-probs stays excluded (nothing to
  // distil). Left unset, a reviewer's 0 stays excluded like the judge's (OpenClaw-RL
  // `openclaw-rl/openclaw_api_server.py`), never silently trained at zero reward.
  const byReviewer = label.source === "REVIEWER";
  const forced = byReviewer && label.excludeOverride === true;
  const lifted = byReviewer && label.excludeOverride === false && dispatch.excluded && method !== "opd";
  const kind = lifted ? (dispatch.kind ?? "RL") : dispatch.kind;
  const excluded = forced || (dispatch.excluded && !lifted);
  const excludeReason = forced ? EXCLUDE.reviewer : lifted ? null : dispatch.excludeReason;
  const reward = kind === "OPD" ? 0 : label.value;
  return {
    ...base,
    value: label.value,
    source: label.source,
    labelId: label.source === "REVIEWER" ? (reviewer?.id ?? null) : label.source === "USER" ? (user?.id ?? null) : null,
    hint,
    // Only when the judge's hint is its shortest candidate (the order the trainer's candidate 0 assumes).
    ...(candidates.length > 1 && candidates[0] === hint ? { hintCandidates: candidates } : {}),
    hintFromTurnId,
    needsTeacherRescore,
    teacherLogprobs,
    kind,
    reward,
    excluded,
    excludeReason,
  };
}

function clampVote(v: number): -1 | 0 | 1 {
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}
