// GET /v1/models, /healthz (the process answers), /readyz (it can serve and record right now).
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendJson } from "../http";
import type { ProxyDeps } from "./deps";

export async function handleModels(req: IncomingMessage, res: ServerResponse, deps: ProxyDeps): Promise<void> {
  const principal = await deps.auth.authenticate(req);
  const models = await deps.experiments.listModels(principal);
  sendJson(res, 200, {
    object: "list",
    data: models.map((m) => ({ id: m.slug, object: "model", created: m.created, owned_by: "openclaw-rl-console" })),
  });
}

export function handleHealth(res: ServerResponse): void {
  sendJson(res, 200, { ok: true });
}

/** Not ready while shutting down or when the recording buffer is full (turns would no longer be kept). */
export function handleReady(res: ServerResponse, deps: ProxyDeps, closing: boolean): void {
  const w = deps.writer;
  const ready = !closing && !w.bufferFull;
  sendJson(res, ready ? 200 : 503, {
    ready,
    closing,
    database: w.degraded ? "unreachable: buffering to disk" : "ok",
    recording: {
      depth: w.depth,
      bufferFull: w.bufferFull,
      journalFailing: w.journalFailing,
      failClosed: deps.recordingFailClosed,
    },
    sessions: deps.sessions.size,
  });
}
