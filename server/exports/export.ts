// Export of turns as JSONL: each line is an OpenClaw-RL turn record (session_id, turn, timestamp, messages,
// prompt_text, response_text, tool_calls, next_state) with its PRM record under `prm` (the reference's RL
// or OPD/combine shape), and everything else we know under `ocrl`: ids, policy version, token ids and
// log-probs, the full judgment with votes, the label history and the effective training label.
import type { z } from "zod";
import { db } from "../platform/db/client";
import { Prisma } from "../platform/db/generated/client";
import { assertExperimentAccess, type Principal } from "../access/principal";
import { decode, renderChat, chatMessageSchema, toolDefSchema } from "../engine/tokenizer";
import { notFound } from "../platform/errors";
import { effectiveLabelsForTurns } from "../labels/effective";
import { scopeExperiment } from "../access/scope";
import { TURN_FROM, turnWhere, sqlTime } from "../trajectories/query";
import type { TurnFilterSchema } from "../trajectories/schemas";
import { messagesForTurns } from "./lanes";
import { voteOut } from "./openclaw";

const BATCH = 200;

type Judgment = Prisma.JudgmentGetPayload<{ include: { votes: true } }>;

/** The reference's PRM record for a judgment: OPD/combine shape when hint votes exist, else RL. */
export function prmRecord(sessionId: string, turn: number, j: Judgment) {
  const evalVotes = j.votes.filter((v) => v.kind === "eval").sort((a, b) => a.index - b.index);
  const hintVotes = j.votes.filter((v) => v.kind === "hint").sort((a, b) => a.index - b.index);
  if (hintVotes.length) {
    return {
      session_id: sessionId,
      turn,
      accepted: j.hintAccepted,
      hint: j.hint,
      hint_len: j.hint?.length ?? 0,
      votes: hintVotes.map((v) => ({ vote_id: v.index, score: voteOut(v.value), hint: v.hint, raw: v.raw })),
      teacher_logprob_len: j.teacherLogprobs.length,
      ...(evalVotes.length ? { score: j.score } : {}),
    };
  }
  const representative = j.score !== 0 ? evalVotes.find((v) => v.value === j.score)?.raw : undefined;
  return {
    session_id: sessionId,
    turn,
    score: j.score,
    votes: evalVotes.map((v) => voteOut(v.value)),
    ...(representative !== undefined ? { representative_eval: representative } : {}),
  };
}

/** The prompt as the embedded policy saw it (its chat template); other policies' templates are unknown here. */
function promptText(embedded: boolean, messages: unknown[], tools: unknown): string | null {
  if (!embedded) return null;
  const msgs = chatMessageSchema.array().safeParse(messages);
  const defs = toolDefSchema.array().safeParse(tools ?? []);
  if (!msgs.success) return null;
  return decode(renderChat(msgs.data, { addGenerationPrompt: true, tools: defs.success ? defs.data : [] }), {
    keepSpecials: true,
  });
}

export async function exportTurnsJsonl(
  p: Principal,
  filter: z.output<typeof TurnFilterSchema>,
): Promise<ReadableStream<Uint8Array>> {
  const experimentId = scopeExperiment(p, filter.experimentId);
  if (!experimentId) throw notFound("Experiment (give experimentId)");
  assertExperimentAccess(p, experimentId);
  const experiment = await db().experiment.findUnique({
    where: { id: experimentId },
    select: { slug: true, config: true },
  });
  if (!experiment) throw notFound("Experiment", experimentId);
  const embedded = (experiment.config as { policy?: { kind?: string } }).policy?.kind === "embedded";
  const where = turnWhere({ ...filter, experimentId });
  const enc = new TextEncoder();
  let after: { at: Date; id: string } | null = null;
  let done = false;

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return controller.close();
      const keyset: Prisma.Sql = after
        ? Prisma.sql`AND (f."createdAt", f."turnId") > (${sqlTime(after.at)}, ${after.id})`
        : Prisma.empty;
      const page = await db().$queryRaw<{ id: string; createdAt: Date }[]>`
        SELECT f."turnId" AS id, f."createdAt" FROM ${TURN_FROM} WHERE ${where} ${keyset}
        ORDER BY f."createdAt", f."turnId" LIMIT ${BATCH}`;
      if (page.length < BATCH) done = true;
      if (!page.length) return controller.close();
      after = { at: page[page.length - 1]!.createdAt, id: page[page.length - 1]!.id };
      const ids = page.map((r) => r.id);
      const [turns, judgments, labels, training] = await Promise.all([
        db().turn.findMany({ where: { id: { in: ids } }, include: { session: { select: { externalId: true } } } }),
        db().judgment.findMany({
          where: { turnId: { in: ids } },
          include: { votes: true },
          orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        }),
        db().label.findMany({ where: { turnId: { in: ids } }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
        effectiveLabelsForTurns(ids),
      ]);
      const messages = await messagesForTurns(turns);
      const toolHashes = [...new Set(turns.map((t) => t.toolsHash).filter((h): h is string => h !== null))];
      const toolBlobs = toolHashes.length ? await db().blob.findMany({ where: { hash: { in: toolHashes } } }) : [];
      const tools = new Map(toolBlobs.map((b) => [b.hash, b.content as unknown]));
      const byId = new Map(turns.map((t) => [t.id, t]));
      const lines: string[] = [];
      for (const id of ids) {
        const t = byId.get(id);
        if (!t) continue;
        const j = judgments.find((x) => x.turnId === id) ?? null;
        const msgs = messages.get(id) ?? [];
        const turnTools = t.toolsHash ? (tools.get(t.toolsHash) ?? null) : null;
        const tr = training.get(id);
        lines.push(
          JSON.stringify({
            session_id: t.session.externalId,
            turn: t.index,
            timestamp: t.createdAt.toISOString(),
            messages: msgs,
            prompt_text: promptText(embedded, msgs, turnTools),
            response_text: t.content ?? "",
            tool_calls: t.toolCalls ?? null,
            next_state: t.nextState ?? null,
            prm: j ? prmRecord(t.session.externalId, t.index, j) : null,
            ocrl: {
              turn_id: t.id,
              experiment: experiment.slug,
              run_id: t.runId,
              turn_type: t.turnType.toLowerCase(),
              status: t.status.toLowerCase(),
              policy_version: t.policyVersion,
              tools: turnTools,
              token_ids: t.tokenIds,
              logprobs: t.logprobs,
              judgment: j && {
                judge_version: j.judgeVersion,
                judge_kind: j.judgeKind,
                model: j.model,
                prompt_version: j.promptVersion,
                score: j.score,
                eval_score: j.evalScore,
                hint: j.hint,
                hint_accepted: j.hintAccepted,
                dispatch: j.dispatch,
                excluded: j.excluded,
                exclude_reason: j.excludeReason,
                teacher_logprobs: j.teacherLogprobs,
                votes: j.votes
                  .sort((a, b) => a.kind.localeCompare(b.kind) || a.index - b.index)
                  .map((v) => ({
                    kind: v.kind,
                    index: v.index,
                    value: v.value,
                    hint: v.hint,
                    raw: v.raw,
                    latency_ms: v.latencyMs,
                    error: v.error,
                  })),
              },
              labels: labels
                .filter((l) => l.turnId === id)
                .map((l) => ({
                  source: l.source.toLowerCase(),
                  value: l.value,
                  hint: l.hint,
                  exclude: l.exclude,
                  comment: l.comment,
                  created_at: l.createdAt.toISOString(),
                })),
              training: tr && {
                value: tr.value,
                source: tr.source?.toLowerCase() ?? null,
                kind: tr.kind,
                reward: tr.reward,
                hint: tr.hint,
                excluded: tr.excluded,
                exclude_reason: tr.excludeReason,
              },
            },
          }),
        );
      }
      controller.enqueue(enc.encode(lines.map((l) => `${l}\n`).join("")));
    },
  });
}
