// What a leased sample carries to an external trainer: the served prompt (reassembled from compact storage),
// the response exactly as sampled, behaviour and teacher log-probs, reward and kind. A reviewer's hint has no
// teacher log-probs yet (the judgment's belong to the judge's hint): it is scored here, by the teacher the
// judge uses for the experiment, as the embedded trainer rescores it at step time.
import { z } from "zod";
import { db } from "../../platform/db/client";
import { ExperimentConfigSchema } from "../../config/experimentConfig";
import { unsealConfig, type SealedSecrets } from "../../config/secrets";
import { effectiveLabelsForTurns } from "../../labels/effective";
import type { TrainingLabel } from "../../labels/trainingLabel";
import { ChatMessageSchema } from "../../judge/core/schemas";
import { hintedTeacherMessages } from "../../judge/core/teacher";
import { createTeacherScorer, type TeacherScorer } from "../../judge/core/teacherClients";
import { createEmbeddedTeacher } from "../../judge/worker/embeddedTeacher";
import { RunPrmLookup, withRunPrm } from "../../judge/worker/endpoints";
import { teacherPlanFor } from "../../judge/worker/settings";
import { reassembleMessages } from "../../recording/reassemble";
import type { LeasedSample } from "./schemas";

const SecretsSchema = z.record(z.string(), z.unknown()).nullable().catch(null);

/** Egress answers for the PRM routers, kept across leases (judge/worker/endpoints.ts). */
const prmLookup = new RunPrmLookup();

/**
 * The experiment's teacher as the judge uses it (judge/worker/settings.ts teacherPlanFor; a live run's PRM
 * teacher router when its job reported one, judge/worker/endpoints.ts), or null when it has none.
 */
async function teacherForRun(runId: string): Promise<TeacherScorer | null> {
  const run = await db().run.findUniqueOrThrow({
    where: { id: runId },
    select: { experimentId: true, config: true, experiment: { select: { secrets: true } } },
  });
  const config = unsealConfig(
    ExperimentConfigSchema.parse(run.config),
    (SecretsSchema.parse(run.experiment.secrets) ?? {}) as SealedSecrets,
  );
  const { prm } = await prmLookup.forExperiment(run.experimentId);
  const plan = teacherPlanFor(withRunPrm(config, prm).teacherConfig);
  if (plan.kind === "embedded") return createEmbeddedTeacher(plan.checkpoint);
  if (plan.kind === "remote") return createTeacherScorer(plan.settings, { apiKey: plan.apiKey });
  return null;
}

/** Teacher log-probs for a reviewer's hint; null when there is no teacher or it cannot score the turn now. */
async function scoreReviewerHint(
  teacher: TeacherScorer | null,
  label: TrainingLabel,
  messages: unknown[],
  tools: unknown[] | null,
  tokenIds: number[],
): Promise<number[] | null> {
  const parsed = z.array(ChatMessageSchema).safeParse(messages);
  if (!teacher || !parsed.success || tokenIds.length === 0) return null;
  try {
    const logprobs = await teacher.score(hintedTeacherMessages(parsed.data, label.hint!), tokenIds, {
      tools: tools ?? undefined,
    });
    return logprobs.length === tokenIds.length ? [...logprobs] : null;
  } catch {
    return null; // the trainer sees teacherLogprobs null with the hint, and can skip or retry the sample
  }
}

const TURN_SELECT = {
  sessionId: true,
  index: true,
  turnType: true,
  systemHash: true,
  toolsHash: true,
  content: true,
  toolCalls: true,
  reasoning: true,
  finishReason: true,
  tokenIds: true,
  logprobs: true,
  policyVersion: true,
  endUserId: true,
} as const;

/** The samples in `sampleIds` order; ids that no longer exist are skipped. */
export async function loadLeasedSamples(sampleIds: readonly string[]): Promise<LeasedSample[]> {
  if (sampleIds.length === 0) return [];
  const rows = await db().sample.findMany({
    where: { id: { in: [...sampleIds] } },
    select: {
      id: true,
      turnId: true,
      runId: true,
      kind: true,
      reward: true,
      labelSource: true,
      leaseCount: true,
      staleness: true,
      turn: { select: TURN_SELECT },
    },
  });
  const toolHashes = [...new Set(rows.map((r) => r.turn.toolsHash).filter((h): h is string => h !== null))];
  const [labels, toolBlobs, messages] = await Promise.all([
    effectiveLabelsForTurns(rows.map((r) => r.turnId)),
    toolHashes.length
      ? db().blob.findMany({ where: { hash: { in: toolHashes } }, select: { hash: true, content: true } })
      : [],
    Promise.all(rows.map((r) => reassembleMessages(r.turn))),
  ]);
  const toolsByHash = new Map(
    toolBlobs.map((b) => [b.hash, Array.isArray(b.content) ? (b.content as unknown[]) : null]),
  );
  const toolsOf = (r: (typeof rows)[number]) => (r.turn.toolsHash ? (toolsByHash.get(r.turn.toolsHash) ?? null) : null);
  const needsRescore = (r: (typeof rows)[number]) =>
    r.kind !== "RL" && labels.get(r.turnId)?.needsTeacherRescore === true && labels.get(r.turnId)?.hint != null;
  const teachers = new Map<string, Promise<TeacherScorer | null>>();
  const rescored = await Promise.all(
    rows.map(async (r, i) => {
      if (!needsRescore(r)) return null;
      if (!teachers.has(r.runId)) teachers.set(r.runId, teacherForRun(r.runId));
      return scoreReviewerHint(
        await teachers.get(r.runId)!,
        labels.get(r.turnId)!,
        messages[i]!,
        toolsOf(r),
        r.turn.tokenIds,
      );
    }),
  );

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
          endUserId: t.endUserId,
          kind: r.kind,
          reward: r.reward,
          labelSource: r.labelSource,
          attempt: r.leaseCount,
          messages: messages[i]!,
          tools: toolsOf(r),
          response: {
            content: t.content,
            toolCalls: t.toolCalls,
            reasoning: t.reasoning,
            finishReason: t.finishReason,
          },
          responseTokenIds: t.tokenIds,
          lossMask: t.tokenIds.map(() => 1),
          rolloutLogprobs: t.logprobs,
          teacherLogprobs: r.kind === "RL" ? null : needsRescore(r) ? rescored[i] : (label?.teacherLogprobs ?? null),
          hint: label?.hint ?? null,
          hintCandidates: r.kind === "RL" ? null : (label?.hintCandidates ?? null),
          policyVersion: t.policyVersion,
          staleness: r.staleness,
        },
      ];
    }),
  );
  return sampleIds.flatMap((id) => byId.get(id) ?? []);
}
