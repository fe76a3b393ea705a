// Compact storage of requests. A session's system message and tool list are stored once in the
// content-addressed Blob table; each turn stores only how its message body differs from the previous turn
// of the same lane (main or side) of its session: `messagesOffset` = how many body messages it keeps,
// `messagesDelta` = the messages after them. Folding the deltas of a lane in index order gives every
// turn's body back exactly; the lane split keeps side calls (compaction, heartbeats) from breaking the
// main conversation's chain.
import { createHash } from "node:crypto";

export interface StoredDelta {
  messagesOffset: number;
  messagesDelta: unknown;
}

export interface BlobRecord {
  hash: string;
  kind: "system" | "tools";
  content: unknown;
  bytes: number;
}

export function isSystemMessage(m: unknown): boolean {
  const role = (m as { role?: unknown } | null)?.role;
  return role === "system" || role === "developer";
}

/** The leading system/developer message (stored as a blob) and the rest of the request. */
export function splitSystem<M>(messages: readonly M[]): { system: M | null; body: M[] } {
  if (messages.length && isSystemMessage(messages[0])) return { system: messages[0]!, body: messages.slice(1) };
  return { system: null, body: [...messages] };
}

export function blobOf(kind: BlobRecord["kind"], content: unknown): BlobRecord {
  const json = JSON.stringify(content);
  const hash = `${kind === "system" ? "sys" : "tools"}_${createHash("sha256").update(json).digest("hex")}`;
  return { hash, kind, content, bytes: Buffer.byteLength(json) };
}

/** One digest per message; two messages with equal digests serialize to the same JSON. */
export function messageDigests(body: readonly unknown[]): string[] {
  return body.map((m) => createHash("sha1").update(JSON.stringify(m)).digest("base64url"));
}

/** The delta of `body` against the lane's previous body (`prev` null: first turn of the lane, store it all). */
export function encodeDelta(
  prev: readonly string[] | null,
  digests: readonly string[],
  body: readonly unknown[],
): { messagesOffset: number; messagesDelta: unknown[] } {
  let offset = 0;
  if (prev) {
    const max = Math.min(prev.length, digests.length);
    while (offset < max && prev[offset] === digests[offset]) offset++;
  }
  return { messagesOffset: offset, messagesDelta: body.slice(offset) };
}

/** Inverse of encodeDelta over one lane's turns in index order: the body of the last one. */
export function foldDeltas(turns: readonly StoredDelta[]): unknown[] {
  const body: unknown[] = [];
  for (const t of turns) {
    body.length = Math.min(body.length, t.messagesOffset);
    const delta = t.messagesDelta;
    if (Array.isArray(delta)) body.push(...delta);
  }
  return body;
}

/** The full message list of the last turn in `laneTurns`. */
export function assembleMessages(system: unknown | null, laneTurns: readonly StoredDelta[]): unknown[] {
  const body = foldDeltas(laneTurns);
  return system === null || system === undefined ? body : [system, ...body];
}
