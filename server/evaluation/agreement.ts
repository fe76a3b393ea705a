// Judge–human agreement: for turns with both a judgment and a human label (the reviewer's relabel, else the
// user's explicit feedback — the label that would train the turn), per judge version, on the −1/0/+1 scale:
// accuracy, Cohen's κ and the confusion matrix (rows: human, columns: judge).
import { db } from "../platform/db/client";
import { latestLabels } from "../labels/precedence";

export const CLASSES = [-1, 0, 1] as const;
export type Klass = (typeof CLASSES)[number];

export interface Agreement {
  n: number;
  accuracy: number | null;
  /** null when undefined (no pairs, or chance agreement is 1: both raters used one class only) */
  kappa: number | null;
  /** confusion[h][j]: turns the human labelled CLASSES[h] and the judge CLASSES[j] */
  confusion: number[][];
}

const clamp = (v: number): Klass => (v > 0 ? 1 : v < 0 ? -1 : 0);

export function agreementOf(pairs: readonly { human: number; judge: number }[]): Agreement {
  const confusion = CLASSES.map(() => CLASSES.map(() => 0));
  for (const p of pairs) confusion[CLASSES.indexOf(clamp(p.human))]![CLASSES.indexOf(clamp(p.judge))]!++;
  const n = pairs.length;
  if (n === 0) return { n, accuracy: null, kappa: null, confusion };
  const idx = [0, 1, 2];
  const observed = idx.reduce((a, i) => a + confusion[i]![i]!, 0) / n;
  const rowSum = (i: number) => confusion[i]!.reduce((a, b) => a + b, 0);
  const colSum = (j: number) => confusion.reduce((a, r) => a + r[j]!, 0);
  const expected = idx.reduce((a, i) => a + (rowSum(i) / n) * (colSum(i) / n), 0);
  const kappa = expected === 1 ? null : (observed - expected) / (1 - expected);
  return { n, accuracy: observed, kappa, confusion };
}

export interface JudgeAgreement extends Agreement {
  judgeVersion: string;
  judgeKind: string;
  model: string;
  disagreements: {
    turnId: string;
    sessionId: string;
    human: number;
    humanSource: "REVIEWER" | "USER";
    judge: number;
    createdAt: string;
  }[];
}

/** Agreement per judge version over an experiment's labelled, judged turns (newest disagreements first). */
export async function judgeAgreement(experimentId: string, opts: { disagreements: number }): Promise<JudgeAgreement[]> {
  const labels = await db().label.findMany({
    where: { source: { in: ["REVIEWER", "USER"] }, turn: { experimentId } },
    select: { turnId: true, source: true, value: true, createdAt: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const byTurn = new Map<string, typeof labels>();
  for (const l of labels) byTurn.set(l.turnId, [...(byTurn.get(l.turnId) ?? []), l]);
  if (!byTurn.size) return [];
  const judgments = await db().judgment.findMany({
    where: { turnId: { in: [...byTurn.keys()] } },
    select: {
      turnId: true,
      judgeVersion: true,
      judgeKind: true,
      model: true,
      score: true,
      turn: { select: { sessionId: true, createdAt: true } },
    },
    orderBy: { createdAt: "desc" },
  });
  const groups = new Map<
    string,
    {
      kind: string;
      model: string;
      rows: {
        turnId: string;
        sessionId: string;
        createdAt: Date;
        human: number;
        source: "REVIEWER" | "USER";
        judge: number;
      }[];
    }
  >();
  for (const j of judgments) {
    const { reviewer, user } = latestLabels(byTurn.get(j.turnId)!);
    const human = reviewer ?? user;
    if (!human) continue;
    const g = groups.get(j.judgeVersion) ?? { kind: j.judgeKind, model: j.model, rows: [] };
    g.rows.push({
      turnId: j.turnId,
      sessionId: j.turn.sessionId,
      createdAt: j.turn.createdAt,
      human: human.value,
      source: human.source as "REVIEWER" | "USER",
      judge: j.score,
    });
    groups.set(j.judgeVersion, g);
  }
  return [...groups.entries()].map(([judgeVersion, g]) => ({
    judgeVersion,
    judgeKind: g.kind,
    model: g.model,
    ...agreementOf(g.rows),
    disagreements: g.rows
      .filter((r) => clamp(r.human) !== clamp(r.judge))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, opts.disagreements)
      .map((r) => ({
        turnId: r.turnId,
        sessionId: r.sessionId,
        human: r.human,
        humanSource: r.source,
        judge: r.judge,
        createdAt: r.createdAt.toISOString(),
      })),
  }));
}

/** The experiment's warning, when its current judge disagrees with humans: κ < threshold over ≥ minLabeled turns. */
export function agreementWarning(
  a: Agreement | undefined,
  cfg: { kappaThreshold: number; minLabeled: number },
): string | null {
  if (!a || a.n < cfg.minLabeled || a.kappa === null || a.kappa >= cfg.kappaThreshold) return null;
  return `Judge–human agreement is low: Cohen's κ = ${a.kappa.toFixed(2)} (< ${cfg.kappaThreshold}) over ${a.n} labelled turns. Training on a judge humans disagree with wastes compute: review the disagreements or change the judge.`;
}
