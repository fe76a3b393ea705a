// Keyset cursors for lists ordered by (time DESC, id DESC): stable under inserts, and O(limit) at any depth,
// where OFFSET would scan everything before the page.
import { appError } from "../platform/errors";

export interface Keyset {
  at: Date;
  id: string;
}

export function encodeCursor(k: Keyset): string {
  return Buffer.from(`${k.at.getTime()}.${k.id}`).toString("base64url");
}

export function decodeCursor(cursor: string): Keyset {
  const text = Buffer.from(cursor, "base64url").toString();
  const dot = text.indexOf(".");
  const ms = Number(text.slice(0, dot));
  const id = text.slice(dot + 1);
  if (dot < 1 || !Number.isSafeInteger(ms) || !id)
    throw appError("malformed_cursor", "Malformed cursor: pass back the nextCursor of the previous page");
  return { at: new Date(ms), id };
}

/** Cuts a `limit + 1` fetch into a page and the cursor of the next one. */
export function keysetPage<T>(
  rows: T[],
  limit: number,
  key: (row: T) => Keyset,
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? encodeCursor(key(items[items.length - 1]!)) : null };
}
