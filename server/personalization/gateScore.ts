// The per-user gate's score and rule, one definition for both ways a candidate is scored: by the embedded model
// (train.ts preferenceScore) and by the serving engine that loads PEFT folders (engineGate.ts).

/**
 * The gate's score of a model on a user's held-out turns: the reward-weighted mean log-likelihood of the replies,
 *   S = (1/N) Σ_i r_i · mean_t log π(y_{i,t})
 * higher when the model makes the replies this user liked likelier and those they disliked less likely. It needs
 * no generation or judge call, so every candidate of every user can be gated on the spot. null without turns.
 */
export function heldOutScore(turns: readonly { reward: number; logprobs: readonly number[] }[]): number | null {
  if (!turns.length) return null;
  return (
    turns.reduce((s, t) => s + (t.reward * t.logprobs.reduce((a, b) => a + b, 0)) / t.logprobs.length, 0) / turns.length
  );
}

/** Promote a candidate when its score ≥ the served one's − tolerance (perUser.gateTolerance); unscored: no. */
export function passesGate(evalScore: number | null, servedScore: number | null, tolerance: number): boolean {
  return evalScore !== null && servedScore !== null && evalScore >= servedScore - tolerance;
}
