// Off-policy bookkeeping. A turn served by version v and trained when the policy is at version c is
// |c − v| versions stale: after a rollback the served version can be *newer* than the one training, and
// that is just as off-policy. Within `maxStaleness` the PPO ratio to the behaviour log-probs corrects
// the gap; beyond it the sample is dropped, or importance-weighted in the decoupled-PPO way: the ratio
// is taken to the current ("proximal") policy, and the whole sample is weighted by the truncated
// sequence-level importance ratio π_current / π_behaviour (geometric mean over tokens, capped at 1).

export function stalenessOf(currentVersion: number, servedVersion: number): number {
  return Math.abs(currentVersion - servedVersion);
}

export function isTooStale(staleness: number, maxStaleness: number): boolean {
  return staleness > maxStaleness;
}

/** min(1, exp(mean_t(current_t − behaviour_t))); 0 for an empty response. */
export function importanceWeight(current: readonly number[], behaviour: readonly number[]): number {
  if (current.length !== behaviour.length)
    throw new Error(`importanceWeight: ${current.length} vs ${behaviour.length} log-probs`);
  if (current.length === 0) return 0;
  let sum = 0;
  for (let t = 0; t < current.length; t++) sum += current[t] - behaviour[t];
  return Math.min(1, Math.exp(sum / current.length));
}
