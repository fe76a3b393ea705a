// Full request messages for many turns at once: one query per (session, lane) instead of one per turn,
// folding the lane's deltas once and keeping the body at each wanted index.
import { db } from "../platform/db/client";

export interface LaneTurn {
  id: string;
  sessionId: string;
  turnType: "MAIN" | "SIDE";
  index: number;
  systemHash: string | null;
}

export async function messagesForTurns(turns: readonly LaneTurn[]): Promise<Map<string, unknown[]>> {
  const lanes = new Map<string, LaneTurn[]>();
  for (const t of turns) {
    const k = `${t.sessionId}|${t.turnType}`;
    lanes.set(k, [...(lanes.get(k) ?? []), t]);
  }
  const hashes = [...new Set(turns.map((t) => t.systemHash).filter((h): h is string => h !== null))];
  const blobs = hashes.length
    ? await db().blob.findMany({ where: { hash: { in: hashes } }, select: { hash: true, content: true } })
    : [];
  const system = new Map(blobs.map((b) => [b.hash, b.content as unknown]));
  const out = new Map<string, unknown[]>();
  for (const wanted of lanes.values()) {
    const { sessionId, turnType } = wanted[0]!;
    const maxIndex = Math.max(...wanted.map((t) => t.index));
    const byIndex = new Map(wanted.map((t) => [t.index, t]));
    const rows = await db().turn.findMany({
      where: { sessionId, turnType, index: { lte: maxIndex } },
      orderBy: { index: "asc" },
      select: { index: true, messagesOffset: true, messagesDelta: true },
    });
    const body: unknown[] = [];
    for (const r of rows) {
      body.length = Math.min(body.length, r.messagesOffset);
      if (Array.isArray(r.messagesDelta)) body.push(...(r.messagesDelta as unknown[]));
      const t = byIndex.get(r.index);
      if (!t) continue;
      const sys = t.systemHash ? system.get(t.systemHash) : undefined;
      out.set(t.id, sys !== undefined && sys !== null ? [sys, ...body] : [...body]);
    }
  }
  return out;
}
