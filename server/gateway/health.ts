import { db } from "../platform/db/client";
import { redis } from "../platform/redis";

export async function healthReport() {
  const [database, cache] = await Promise.all([
    db().$queryRaw`SELECT 1`.then(
      () => "ok",
      (e: Error) => `error: ${e.message}`,
    ),
    redis()
      .ping()
      .then(
        () => "ok",
        (e: Error) => `error: ${e.message}`,
      ),
  ]);
  return { ok: database === "ok" && cache === "ok", database, redis: cache, time: new Date().toISOString() };
}
