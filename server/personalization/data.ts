// One user's training data: their judged main turns, and nobody else's. Every query here is filtered by
// (experimentId, endUserId) on the turn itself, which is the privacy boundary of per-user personalization:
// an adapter's samples come from this module only (tests/integration/personalization/adapters.test.ts isolation).
// The one owner whose turns are everyone's is EVERYONE, the shared adapter for new users (turnsOf).
import { createHash } from "node:crypto";
import { z } from "zod";
import { db } from "../platform/db/client";
import { effectiveLabelsForTurns } from "../labels/effective";
import { reassembleMessages } from "../recording/reassemble";
import { servedPromptIds } from "../training/trainInputs";
import type { AdapterSample } from "../engine/loraTrain";
import { EVERYONE } from "../config/experimentConfig";

/** The turns of one end user, or of every end user for EVERYONE's chain (no other id reaches beyond its own). */
export function turnsOf(endUserId: string) {
  return endUserId === EVERYONE ? { endUserId: { not: null } } : { endUserId };
}

/** Whose adapters an experiment trains: each end user's, and EVERYONE's when new users are served a shared one. */
export async function adapterOwners(experimentId: string, newUsers: "base" | "shared"): Promise<string[]> {
  return [...(await endUsers(experimentId)), ...(newUsers === "shared" ? [EVERYONE] : [])];
}

export interface UserSample extends AdapterSample {
  turnId: string;
  /** whose turn (for EVERYONE's chain, each sample's own user) */
  endUserId: string;
  createdAt: Date;
  /** the request as served (the hinted teacher's context for hindsight) */
  messages: unknown[];
  /** the turn's own accepted hint (a reviewer's, or the judge's from the user's correction); null without one */
  hint: string | null;
}

/**
 * A turn is held out for the user's gate, or trainable, once and for all: the split hashes the turn id, so a
 * held-out turn never trains any version and the gate always scores turns the adapter has not seen.
 */
export function isHeldOut(turnId: string, fraction: number): boolean {
  if (fraction <= 0) return false;
  const h = createHash("sha256").update(turnId).digest().readUInt32BE(0);
  return h / 2 ** 32 < fraction;
}

const Messages = z.array(z.unknown());

/**
 * The user's labelled, not excluded, successful main turns (created after `after`), oldest first; without tool
 * definitions unless `tools` (the embedded adapters train on plain chat only).
 */
async function judgedTurns(experimentId: string, endUserId: string, after: Date | null, tools = false) {
  const turns = await db().turn.findMany({
    where: {
      experimentId,
      ...turnsOf(endUserId),
      turnType: "MAIN",
      status: "OK",
      ...(tools ? {} : { toolsHash: null }),
      ...(after ? { createdAt: { gt: after } } : {}),
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: {
      id: true,
      endUserId: true,
      sessionId: true,
      index: true,
      systemHash: true,
      toolsHash: true,
      turnType: true,
      tokenIds: true,
      content: true,
      promptTokens: true,
      createdAt: true,
    },
  });
  const labels = await effectiveLabelsForTurns(turns.map((t) => t.id));
  return turns.flatMap((t) => {
    const label = labels.get(t.id);
    if (!label || label.value === null || label.excluded) return [];
    return [{ turn: t, label, reward: Math.max(-1, Math.min(1, label.value)) }];
  });
}

/**
 * The user's labelled, not excluded, successful main turns of this experiment (created after `after` when given),
 * oldest first, as adapter samples: the prompt as the embedded upstream rendered it, the served reply's token
 * ids, and the effective label (reviewer > user feedback > judge) as the reward, with the turn's hint (hindsight).
 */
export async function userSamples(
  experimentId: string,
  endUserId: string,
  opts: { after?: Date | null } = {},
): Promise<UserSample[]> {
  const out: UserSample[] = [];
  for (const { turn: t, label, reward } of await judgedTurns(experimentId, endUserId, opts.after ?? null)) {
    if (t.tokenIds.length === 0) continue;
    const messages = Messages.parse(await reassembleMessages(t));
    const promptIds = servedPromptIds(messages, undefined, t.promptTokens);
    if (!promptIds) continue;
    out.push({
      turnId: t.id,
      endUserId: t.endUserId!,
      createdAt: t.createdAt,
      promptIds,
      responseIds: t.tokenIds,
      reward,
      messages,
      // A remembered hint (hint memory) did not correct this reply: like the shared trainer, no demonstration from it.
      hint: label.hintFromTurnId ? null : label.hint,
    });
  }
  return out;
}

/** A held-out turn as a serving engine scores it: the request as served, the reply (token ids, else its text). */
export interface HeldOutTurn {
  turnId: string;
  messages: unknown[];
  /** the request's tool definitions (null: none) */
  tools: unknown[] | null;
  response: number[] | string;
  reward: number;
}

/**
 * The user's held-out judged turns (isHeldOut), for a gate that scores on a serving engine (engineGate.ts): the
 * engine tokenizes the request itself, so no embedded rendering is needed. `probe`: only whether there is one.
 */
export async function heldOutTurns(
  experimentId: string,
  endUserId: string,
  fraction: number,
  opts: { probe?: boolean } = {},
): Promise<HeldOutTurn[]> {
  if (fraction <= 0) return [];
  const out: HeldOutTurn[] = [];
  for (const { turn: t, reward } of await judgedTurns(experimentId, endUserId, null, true)) {
    if (!isHeldOut(t.id, fraction)) continue;
    const response = t.tokenIds.length ? t.tokenIds : (t.content ?? "");
    if (response.length === 0) continue;
    const blob = t.toolsHash
      ? await db().blob.findUnique({ where: { hash: t.toolsHash }, select: { content: true } })
      : null;
    const tools = Array.isArray(blob?.content) ? (blob.content as unknown[]) : null;
    out.push({ turnId: t.id, messages: Messages.parse(await reassembleMessages(t)), tools, response, reward });
    if (opts.probe) break;
  }
  return out;
}

/** End users of the experiment (those an identity key named on at least one turn). */
export async function endUsers(experimentId: string): Promise<string[]> {
  const rows = await db().turn.findMany({
    where: { experimentId, endUserId: { not: null } },
    distinct: ["endUserId"],
    select: { endUserId: true },
  });
  return rows.map((r) => r.endUserId!).sort();
}
