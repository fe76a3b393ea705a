// Raw HTTP endpoints for bulk data, outside the JSON REST table (its bodies are capped at 1 MB):
//   GET  /api/export/turns?experimentId=…&<trajectory filters>  → application/x-ndjson, streamed
//   POST /api/import/openclaw?experimentId=…  (body: JSONL, turn and/or PRM records) → import report
import { resolveContext, assertSameOrigin } from "../context";
import { assertCan } from "../../access/principal";
import { fromZod, unauthorized, badRequest, conflict } from "../../platform/errors";
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

/** Callers (user or key) with an import running in this process: one at a time each. */
const importing = new Set<string>();

export async function importRecords(req: Request): Promise<Response> {
  let holder: string | null = null;
  try {
    const p = await principal(req, "write");
    const experimentId = new URL(req.url).searchParams.get("experimentId");
    if (!experimentId) throw badRequest("experimentId is required", [{ path: "experimentId", message: "required" }]);
    // An import can hold the process for a long while (256 MB of JSONL): a caller does not run two at once.
    const who = p.kind === "user" ? `user:${p.userId}` : `key:${p.keyId}`;
    if (importing.has(who)) throw conflict("An import of yours is still running: wait for its report");
    importing.add((holder = who));
    const report = await importOpenClaw(p, experimentId, await readCappedText(req, MAX_IMPORT_BYTES, "Import"));
    return Response.json(report);
  } catch (err) {
    return errorResponse(err);
  } finally {
    if (holder) importing.delete(holder);
  }
}
