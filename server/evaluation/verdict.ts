// "Is it learning?" in one word, from numbers a user can check: the judged reward of conversations' first replies
// (what the policy does before anyone corrects it) against the base's, and the held-out evaluation (a grader that
// is not the reward) against the base's. A judged reward that rises while the held-out score stays flat is the
// policy fitting the judge, not learning the preference; the verdict says so rather than "learning".

/** First replies each side (base and recent) before the judged reward is compared: fewer is noise. */
export const MIN_FIRST_REPLIES = 12;
/** A judged first-reply gain (−1…1 scale) at least this large is a rise; as low is a fall. */
export const JUDGED_RISE = 0.2;
/** A held-out gain (0…1 pass rate) at least this large confirms a rise; below it, held-out is flat. */
export const HELD_OUT_RISE = 0.1;

export type Verdict = "too early" | "learning" | "fitting the judge" | "flat" | "getting worse";

export interface VerdictInput {
  /** the base (version 0): judged first replies, mean score */
  base: { firstTurns: number; firstReward: number | null } | null;
  /** the latest versions' judged first replies, pooled back from the newest until MIN_FIRST_REPLIES */
  recent: { firstTurns: number; firstReward: number | null; fromVersion: number } | null;
  /** held-out evaluation means: the base's and the newest evaluated trained version's, when both exist */
  heldOut: { base: number; latest: number; latestVersion: number } | null;
}

export interface VerdictResult {
  verdict: Verdict;
  /** one sentence with the numbers behind the verdict */
  reason: string;
  /** the rule, as shown to the user */
  rule: string;
  judgedGain: number | null;
  heldOutGain: number | null;
}

export const VERDICT_RULE =
  `Judged gain = mean judge score of the latest versions' first replies (at least ${MIN_FIRST_REPLIES}) minus the ` +
  `base's. Held-out gain = the newest evaluated version's held-out pass rate minus the base's. ` +
  `"learning": judged gain ≥ +${JUDGED_RISE} and held-out gain ≥ +${HELD_OUT_RISE} (or not evaluated yet); ` +
  `"fitting the judge": judged gain ≥ +${JUDGED_RISE} but held-out gain < +${HELD_OUT_RISE}; ` +
  `"getting worse": judged gain ≤ −${JUDGED_RISE}; otherwise "flat". ` +
  `"too early" until both sides have ${MIN_FIRST_REPLIES} judged first replies.`;

const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(2)}`;

export function learningVerdict(input: VerdictInput): VerdictResult {
  const { base, recent, heldOut } = input;
  const heldOutGain = heldOut ? heldOut.latest - heldOut.base : null;
  const out = (verdict: Verdict, reason: string, judgedGain: number | null): VerdictResult => ({
    verdict,
    reason,
    rule: VERDICT_RULE,
    judgedGain,
    heldOutGain,
  });
  const enough = (s: { firstTurns: number; firstReward: number | null } | null) =>
    s !== null && s.firstReward !== null && s.firstTurns >= MIN_FIRST_REPLIES;
  if (!enough(base) || !enough(recent))
    return out(
      "too early",
      `${base?.firstTurns ?? 0} judged first replies at the base and ${recent?.firstTurns ?? 0} since; ` +
        `${MIN_FIRST_REPLIES} each are needed`,
      null,
    );
  const judgedGain = recent!.firstReward! - base!.firstReward!;
  const judged = `first replies ${signed(base!.firstReward!)} at the base → ${signed(recent!.firstReward!)} since version ${recent!.fromVersion} (${signed(judgedGain)})`;
  const held =
    heldOut && heldOutGain !== null
      ? `held-out ${heldOut.base.toFixed(2)} → ${heldOut.latest.toFixed(2)} at version ${heldOut.latestVersion} (${signed(heldOutGain)})`
      : "no held-out evaluation of a trained version yet";
  if (judgedGain >= JUDGED_RISE) {
    if (heldOutGain !== null && heldOutGain < HELD_OUT_RISE)
      return out("fitting the judge", `${judged}; ${held}`, judgedGain);
    return out("learning", `${judged}; ${held}`, judgedGain);
  }
  if (judgedGain <= -JUDGED_RISE) return out("getting worse", `${judged}; ${held}`, judgedGain);
  return out("flat", `${judged}; ${held}`, judgedGain);
}

/** The newest versions' first replies pooled back until `min` of them: a steadier "now" than one version. */
export function recentFirstReplies(
  versions: readonly { version: number; firstTurns: number; firstReward: number | null }[],
  min = MIN_FIRST_REPLIES,
): { firstTurns: number; firstReward: number | null; fromVersion: number } | null {
  let n = 0;
  let sum = 0;
  let from = 0;
  for (const v of [...versions].sort((a, b) => b.version - a.version)) {
    if (v.version === 0 || v.firstReward === null || v.firstTurns === 0) continue;
    n += v.firstTurns;
    sum += v.firstReward * v.firstTurns;
    from = v.version;
    if (n >= min) break;
  }
  return n > 0 ? { firstTurns: n, firstReward: sum / n, fromVersion: from } : null;
}
