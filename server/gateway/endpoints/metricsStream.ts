// GET /api/stream/metrics?experimentId=&runIds=&names= : Server-Sent Events carrying new metric points as
// the trainer, judge and proxy publish them on the Redis `metrics` channel. Events: `ready` once the
// subscription is live, then `points` ({experimentId, runId, points[]}); a comment every 15 s keeps proxies
// from closing an idle stream.
import { z } from "zod";
import { resolveContext } from "../context";
import { assertCan, assertExperimentAccess, boundExperimentId } from "../../access/principal";
import { db } from "../../platform/db/client";
import { badRequest, fromZod, notFound, unauthorized } from "../../platform/errors";
import { errorResponse } from "../httpErrors";
import { filterMessage, onMetrics, type LiveFilter } from "../../metrics/live";

const list = z
  .string()
  .optional()
  .transform((v) => (v === undefined ? undefined : v.split(",").map((s) => s.trim())));

const StreamQuery = z.object({ experimentId: z.string().max(64).optional(), runIds: list, names: list });

const KEEPALIVE_MS = 15_000;

export async function metricsStream(req: Request): Promise<Response> {
  try {
    const ctx = await resolveContext(req);
    if (!ctx.principal) throw unauthorized("Sign in or send an API key");
    assertCan(ctx.principal, "read");
    const url = new URL(req.url);
    const parsed = StreamQuery.safeParse(Object.fromEntries(url.searchParams));
    if (!parsed.success) throw fromZod(parsed.error, "Invalid query");
    const experimentId = parsed.data.experimentId ?? boundExperimentId(ctx.principal);
    if (!experimentId)
      throw badRequest("Invalid query: experimentId is required", [{ path: "experimentId", message: "required" }]);
    assertExperimentAccess(ctx.principal, experimentId);
    if (!(await db().experiment.findUnique({ where: { id: experimentId }, select: { id: true } })))
      throw notFound("Experiment", experimentId);
    const filter: LiveFilter = { experimentId, runIds: parsed.data.runIds, names: parsed.data.names?.filter(Boolean) };
    return new Response(eventStream(req.signal, filter), {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        // no-transform: keeps compression middleware from buffering the stream.
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      },
    });
  } catch (err) {
    return errorResponse(err);
  }
}

function eventStream(signal: AbortSignal, filter: LiveFilter): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let cleanup = () => {};
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      const send = (text: string) => {
        if (!open) return;
        try {
          controller.enqueue(enc.encode(text));
        } catch {
          close();
        }
      };
      let unsubscribe = () => {};
      const timer = setInterval(() => send(": keepalive\n\n"), KEEPALIVE_MS);
      const close = () => {
        if (!open) return;
        open = false;
        clearInterval(timer);
        unsubscribe();
        signal.removeEventListener("abort", close);
        try {
          controller.close();
        } catch {
          /* already closed by the client */
        }
      };
      cleanup = close;
      signal.addEventListener("abort", close, { once: true });
      send("retry: 2000\n\n");
      try {
        unsubscribe = await onMetrics((m) => {
          const part = filterMessage(m, filter);
          if (part) send(`event: points\ndata: ${JSON.stringify(part)}\n\n`);
        });
      } catch (err) {
        send(
          `event: error\ndata: ${JSON.stringify({ message: `live metrics unavailable: ${(err as Error).message}` })}\n\n`,
        );
        close();
        return;
      }
      if (!open || signal.aborted) {
        unsubscribe();
        return;
      }
      send(`event: ready\ndata: {}\n\n`);
    },
    cancel() {
      cleanup();
    },
  });
}
