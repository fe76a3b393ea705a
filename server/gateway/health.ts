// Unauthenticated: it says whether each dependency answers, never why not (error texts name hosts and users).
import { db } from "../platform/db/client";
import { redis } from "../platform/redis";

export async function healthReport() {
  const [database, cache] = await Promise.all([
    db().$queryRaw`SELECT 1`.then(
      () => "ok",
      () => "unreachable",
    ),
    redis()
      .ping()
      .then(
        () => "ok",
        () => "unreachable",
      ),
  ]);
  return { ok: database === "ok" && cache === "ok", database, redis: cache, time: new Date().toISOString() };
}
