// Raw HTTP endpoints for bulk data, outside the JSON REST table (its bodies are capped at 1 MB):
//   GET  /api/export/turns?experimentId=…&<trajectory filters>  → application/x-ndjson, streamed
//   POST /api/import/openclaw?experimentId=…  (body: JSONL, turn and/or PRM records) → import report
import { resolveContext, assertSameOrigin } from "../context";
import { assertCan } from "../../access/principal";
import { appError, fromZod, unauthorized, badRequest } from "../../platform/errors";
import { acquireCallerLock, type CallerLock } from "../../platform/callerLock";
import { errorResponse } from "../httpErrors";
import { readCappedText } from "../body";
import { TurnFilterSchema } from "../../trajectories/schemas";
import { exportTurnsJsonl } from "../../exports/export";
import { importOpenClaw } from "../../exports/import";

export const MAX_IMPORT_BYTES = 256 * 1024 * 1024;

async function principal(req: Request, perm: "read" | "write") {
  const ctx = await resolveContext(req);
  if (!ctx.principal) throw unauthorized("Sign in or send an API key");
  assertSameOrigin(ctx);
  assertCan(ctx.principal, perm);
  return ctx.principal;
}

export async function exportTurns(req: Request): Promise<Response> {
  try {
    const p = await principal(req, "read");
    const url = new URL(req.url);
    const parsed = TurnFilterSchema.safeParse(Object.fromEntries(url.searchParams));
    if (!parsed.success) throw fromZod(parsed.error, "Invalid export filter");
    const stream = await exportTurnsJsonl(p, parsed.data);
    const name = `turns-${parsed.data.experimentId ?? "experiment"}-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-")}.jsonl`;
    return new Response(stream, {
      headers: {
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="${name}"`,
        "cache-control": "no-store, no-transform",
      },
    });
  } catch (err) {
    return errorResponse(err);
  }
}

export async function importRecords(req: Request): Promise<Response> {
  let lock: CallerLock | null = null;
  try {
    const p = await principal(req, "write");
    const experimentId = new URL(req.url).searchParams.get("experimentId");
    if (!experimentId) throw badRequest("experimentId is required", [{ path: "experimentId", message: "required" }]);
    // An import can hold a process for a long while (256 MB of JSONL): one user runs one at a time, whichever
    // web process, session or key (a key counts as its creator) it comes through.
    const who = p.kind === "user" ? `user:${p.userId}` : p.createdById ? `user:${p.createdById}` : `key:${p.keyId}`;
    lock = await acquireCallerLock("import", who);
    if (!lock) throw appError("import_in_progress", "An import of yours is still running: wait for its report");
    const report = await importOpenClaw(p, experimentId, await readCappedText(req, MAX_IMPORT_BYTES, "Import"));
    return Response.json(report);
  } catch (err) {
    return errorResponse(err);
  } finally {
    await lock?.release();
  }
}
