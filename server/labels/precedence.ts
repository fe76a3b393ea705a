// Which label trains a turn: a reviewer's relabel beats the user's explicit feedback, which beats the judge.

export type LabelSource = "REVIEWER" | "USER" | "JUDGE";

export type HumanLabel = {
  value: number;
  hint?: string | null;
  exclude?: boolean | null;
  createdAt?: Date;
};

export type EffectiveLabel = {
  value: number;
  source: LabelSource;
  /** Reviewer only: a hint that replaces the judge's hint for OPD. */
  hint: string | null;
  /** Reviewer only: force (true) or lift (false) exclusion; null leaves the dispatch decision alone. */
  excludeOverride: boolean | null;
};

export function effectiveLabel(input: {
  reviewer?: HumanLabel | null;
  user?: HumanLabel | null;
  judge: { value: number };
}): EffectiveLabel {
  const { reviewer, user, judge } = input;
  if (reviewer) {
    return {
      value: reviewer.value,
      source: "REVIEWER",
      hint: reviewer.hint?.trim() ? reviewer.hint.trim() : null,
      excludeOverride: reviewer.exclude ?? null,
    };
  }
  if (user) return { value: user.value, source: "USER", hint: null, excludeOverride: null };
  return { value: judge.value, source: "JUDGE", hint: null, excludeOverride: null };
}

/** The latest label of each human source (ties on time keep the later array entry). */
export function latestLabels<T extends HumanLabel & { source: LabelSource }>(
  labels: readonly T[],
): { reviewer: T | null; user: T | null } {
  const latest = (source: LabelSource): T | null => {
    let best: T | null = null;
    for (const label of labels) {
      if (label.source !== source) continue;
      if (best === null || (label.createdAt?.getTime() ?? 0) >= (best.createdAt?.getTime() ?? 0)) best = label;
    }
    return best;
  };
  return { reviewer: latest("REVIEWER"), user: latest("USER") };
}
