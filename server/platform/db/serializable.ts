// Serializable transactions, retried. Postgres aborts one of two conflicting SERIALIZABLE transactions with
// SQLSTATE 40001 (or 40P01 on a deadlock) and expects the client to run it again; the work is all-or-nothing, so a
// rerun is safe. The callback must be free of side effects outside the transaction (no queue pushes, no HTTP).
import { db, type Prisma } from "./client";

const RETRYABLE_SQLSTATES = new Set(["40001", "40P01"]);
const MAX_ATTEMPTS = 5;

interface AdapterCause {
  kind?: string;
  originalCode?: string;
  code?: string;
}

/**
 * Whether `err` is a serialization failure or deadlock. Prisma reports one in three shapes, as observed with
 * @prisma/adapter-pg 6.19 (tests/integration/db/serializable.test.ts raises each):
 * - P2034 ("Transaction failed due to a write conflict or a deadlock") from the query engine;
 * - P2010 (raw query failed) with `meta.driverAdapterError.cause` carrying `kind: "TransactionWriteConflict"`
 *   and `originalCode: "40001"`;
 * - a bare DriverAdapterError whose `cause.kind` is "TransactionWriteConflict", thrown at COMMIT.
 */
export function isSerializationFailure(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { code?: unknown; meta?: { driverAdapterError?: { cause?: AdapterCause } }; cause?: AdapterCause };
  if (e.code === "P2034") return true;
  const causes = [e.meta?.driverAdapterError?.cause, e.cause];
  return causes.some(
    (c) =>
      c !== undefined &&
      (c.kind === "TransactionWriteConflict" ||
        RETRYABLE_SQLSTATES.has(c.originalCode ?? "") ||
        RETRYABLE_SQLSTATES.has(c.code ?? "")),
  );
}

/** Runs `fn` in a SERIALIZABLE transaction, again (after a short jittered pause) when Postgres aborts it as a conflict. */
export async function serializable<T>(
  fn: (tx: Prisma.TransactionClient) => Promise<T>,
  attempts = MAX_ATTEMPTS,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db().$transaction(fn, { isolationLevel: "Serializable" });
    } catch (err) {
      if (attempt >= attempts || !isSerializationFailure(err)) throw err;
      // Both losers of a conflict retrying in lockstep would collide again: spread them out.
      await new Promise((r) => setTimeout(r, 10 * 2 ** attempt * Math.random()));
    }
  }
}
