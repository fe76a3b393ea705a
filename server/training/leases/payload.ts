// What a leased sample carries to an external trainer: the served prompt (reassembled from compact storage),
// the response exactly as sampled, behaviour and teacher log-probs, reward and kind.
import { db } from "../../platform/db/client";
import { effectiveLabelsForTurns } from "../../labels/effective";
import { reassembleMessages } from "../../recording/reassemble";
import type { LeasedSample } from "./schemas";

const TURN_SELECT = {
  sessionId: true, index: true, turnType: true, systemHash: true, toolsHash: true, content: true, toolCalls: true,
  reasoning: true, finishReason: true, tokenIds: true, logprobs: true, policyVersion: true,
} as const;

/** The samples in `sampleIds` order; ids that no longer exist are skipped. */
export async function loadLeasedSamples(sampleIds: readonly string[]): Promise<LeasedSample[]> {
  if (sampleIds.length === 0) return [];
  const rows = await db().sample.findMany({
    where: { id: { in: [...sampleIds] } },
    select: { id: true, turnId: true, kind: true, reward: true, labelSource: true, leaseCount: true, staleness: true, turn: { select: TURN_SELECT } },
  });
  const toolHashes = [...new Set(rows.map((r) => r.turn.toolsHash).filter((h): h is string => h !== null))];
  const [labels, toolBlobs, messages] = await Promise.all([
    effectiveLabelsForTurns(rows.map((r) => r.turnId)),
    toolHashes.length ? db().blob.findMany({ where: { hash: { in: toolHashes } }, select: { hash: true, content: true } }) : [],
    Promise.all(rows.map((r) => reassembleMessages(r.turn))),
  ]);
  const toolsByHash = new Map(toolBlobs.map((b) => [b.hash, Array.isArray(b.content) ? (b.content as unknown[]) : null]));

  const byId = new Map(
    rows.map((r, i): [string, LeasedSample] => {
      const t = r.turn;
      const label = labels.get(r.turnId);
      return [
        r.id,
        {
          sampleId: r.id,
          turnId: r.turnId,
          sessionId: t.sessionId,
          turnIndex: t.index,
          kind: r.kind,
          reward: r.reward,
          labelSource: r.labelSource,
          attempt: r.leaseCount,
          messages: messages[i]!,
          tools: t.toolsHash ? (toolsByHash.get(t.toolsHash) ?? null) : null,
          response: { content: t.content, toolCalls: t.toolCalls, reasoning: t.reasoning, finishReason: t.finishReason },
          responseTokenIds: t.tokenIds,
          lossMask: t.tokenIds.map(() => 1),
          rolloutLogprobs: t.logprobs,
          teacherLogprobs: r.kind === "RL" ? null : (label?.teacherLogprobs ?? null),
          hint: label?.hint ?? null,
          policyVersion: t.policyVersion,
          staleness: r.staleness,
        },
      ];
    }),
  );
  return sampleIds.flatMap((id) => byId.get(id) ?? []);
}
