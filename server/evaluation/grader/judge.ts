// The model-judge grader: the experiment's judge backend grades each reply against the item's rubric with
// m votes (the judge core's parser, limiter/breaker/retries and vote mean), mapped from −1…1 to 0…1.
import { createHash } from "node:crypto";
import type { JudgeBackend } from "../../judge/core/judgeBackend";
import { flattenContent } from "../../judge/core/messages";
import { parseEvalVote } from "../../judge/core/parse";
import { BreakerRegistry, Limiter, resilientCall } from "../../judge/core/resilience";
import type { ChatMessage } from "../../judge/core/schemas";
import { meanVote } from "../../judge/core/vote";
import { describeError } from "../../judge/core/judgeTurn";
import { buildRubricMessages, RUBRIC_PROMPT_VERSION } from "./rubric";
import { GradeError, type Grader } from "./types";

export interface JudgeGraderOptions {
  backend: JudgeBackend;
  votes: number;
  temperature: number;
  maxTokens: number;
  timeoutMs?: number;
  retries?: number;
  concurrency?: number;
}

export function judgeGraderVersion(o: { kind: string; model: string; votes: number; temperature: number }): string {
  const canonical = JSON.stringify([o.kind, o.model, RUBRIC_PROMPT_VERSION, o.votes, o.temperature]);
  return `rubric-${createHash("sha256").update(canonical).digest("hex").slice(0, 12)}`;
}

function conversationText(messages: readonly Record<string, unknown>[]): string {
  return messages.map((m) => `[${String(m.role)}] ${flattenContent((m as ChatMessage).content)}`).join("\n");
}

export function createJudgeGrader(o: JudgeGraderOptions): Grader {
  const limiter = new Limiter(o.concurrency ?? 4);
  const breaker = new BreakerRegistry().get(`grader:${o.backend.endpoint}`);
  return {
    name: "judge",
    version: judgeGraderVersion({
      kind: o.backend.kind,
      model: o.backend.model,
      votes: o.votes,
      temperature: o.temperature,
    }),
    cannotGrade: () => null,
    async grade(item, reply, signal) {
      const messages = buildRubricMessages({
        conversation: conversationText(item.messages),
        reply,
        rubric: item.rubric,
        reference: item.reference,
      });
      const votes = await Promise.all(
        Array.from({ length: o.votes }, async () => {
          try {
            const raw = await resilientCall(
              (s) => o.backend.complete(messages, { temperature: o.temperature, maxTokens: o.maxTokens, signal: s }),
              {
                limiter,
                breaker,
                timeoutMs: o.timeoutMs ?? 120_000,
                retry: { retries: o.retries ?? 2 },
                signal,
              },
            );
            return { value: parseEvalVote(raw), error: null as string | null };
          } catch (err) {
            return { value: null, error: describeError(err) };
          }
        }),
      );
      const mean = meanVote(votes.map((v) => v.value));
      if (mean === null)
        throw new GradeError(`no valid judge vote (${votes.map((v) => v.error ?? "unparsable answer").join("; ")})`);
      return { score: (mean + 1) / 2, detail: { votes: votes.map((v) => v.value) } };
    },
  };
}
