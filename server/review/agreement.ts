// How far the reviewers of one item agree, shown once an item is done. Pure. (Not the judge–human agreement
// of server/evaluation/agreement.ts, which compares the judge with reviewers over many turns.)

/** Share of reviewers who gave the most common answer (exclusion counts as its own answer); null without answers. */
export function reviewerAgreement(
  answers: readonly string[],
): { reviewers: number; agreeing: number; ratio: number } | null {
  if (!answers.length) return null;
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(a, (counts.get(a) ?? 0) + 1);
  const agreeing = Math.max(...counts.values());
  return { reviewers: answers.length, agreeing, ratio: agreeing / answers.length };
}
