// Loads a recorded turn and turns it into the judge core's input: the reassembled request, the
// assistant output (content plus tool calls, and the policy's token ids), the next state with its
// role, and the experiment's config with secrets unsealed.
import { z } from "zod";
import { db } from "../../platform/db/client";
import { ExperimentConfigSchema, judgeExtractsHints, type ExperimentConfig } from "../../config/experimentConfig";
import { unsealConfig, type SealedSecrets } from "../../config/secrets";
import type { JudgeTurnInput } from "../core/judgeTurn";
import { assistantOutputText } from "../core/messages";
import { ChatMessageSchema, type ChatMessage } from "../core/schemas";
import { reassembleMessages } from "../../recording/reassemble";
import { notReadyReason, type NotReady } from "../../recording/readiness";

export type SkipReason = "missing" | NotReady;

export type LoadedTurn =
  | { ready: false; reason: SkipReason }
  | {
      ready: true;
      turnId: string;
      experimentId: string;
      config: ExperimentConfig;
      input: JudgeTurnInput;
    };

const MessagesSchema = z.array(ChatMessageSchema);
const SecretsSchema = z.record(z.string(), z.string());

/**
 * The next state as a chat message. The proxy stores the next request's last message; its role is
 * kept separately (`nextStateRole`) and wins. Anything else recorded is shown to the judge as text.
 */
export function nextStateMessage(raw: unknown, role: string | null): ChatMessage | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === "string") return { role: role ?? "user", content: raw };
  const parsed = ChatMessageSchema.safeParse(raw);
  if (parsed.success) return { ...parsed.data, role: role ?? parsed.data.role };
  return { role: role ?? "user", content: JSON.stringify(raw) };
}

export async function loadTurnForJudging(turnId: string): Promise<LoadedTurn> {
  const turn = await db().turn.findUnique({
    where: { id: turnId },
    include: { session: { select: { done: true } }, experiment: { select: { config: true, secrets: true } } },
  });
  if (!turn) return { ready: false, reason: "missing" };
  const nextState = nextStateMessage(turn.nextState, turn.nextStateRole);
  const notReady = notReadyReason({
    turnType: turn.turnType,
    status: turn.status,
    hasNextState: !!nextState,
    sessionDone: turn.session.done,
  });
  if (notReady) return { ready: false, reason: notReady };

  const config = unsealConfig(
    ExperimentConfigSchema.parse(turn.experiment.config),
    SecretsSchema.parse(turn.experiment.secrets) as SealedSecrets,
  );
  const [rawMessages, tools] = await Promise.all([
    reassembleMessages(turn),
    turn.toolsHash
      ? db()
          .blob.findUnique({ where: { hash: turn.toolsHash } })
          .then((b) => b?.content ?? null)
      : null,
  ]);
  const messages = MessagesSchema.parse(rawMessages);
  return {
    ready: true,
    turnId: turn.id,
    experimentId: turn.experimentId,
    config,
    input: {
      method: config.method,
      hints: judgeExtractsHints(config),
      messages,
      response: {
        text: assistantOutputText(turn.content, turn.toolCalls),
        tokenIds: turn.tokenIds.length > 0 ? turn.tokenIds : undefined,
      },
      nextState,
      tools: Array.isArray(tools) ? tools : undefined,
    },
  };
}
