// Small node:http helpers: bounded body reading and JSON/error responses.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ProxyError } from "./errors";

const tooLarge = (limit: number) =>
  new ProxyError(413, "invalid_request_error", `Request body exceeds the ${limit}-byte limit`, "request_too_large");

/**
 * Reads the whole body, refusing (413) as soon as it passes `limit` bytes, and (408) when the client pauses
 * longer than `idleMs` between two chunks: a dribbled body does not hold a request slot forever.
 */
export function readBody(req: IncomingMessage, limit: number, idleMs = 30_000): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    const idle = () => {
      if (failed) return;
      failed = true;
      reject(new ProxyError(408, "invalid_request_error", `No request body bytes for ${idleMs} ms`, "request_timeout"));
      // The 408 goes out first; then the connection of a client that keeps the body open is dropped.
      setTimeout(() => req.destroy(), 1000).unref();
    };
    let timer = setTimeout(idle, idleMs);
    req.on("data", (chunk: Buffer) => {
      if (failed) return;
      clearTimeout(timer);
      timer = setTimeout(idle, idleMs);
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    let ended = false;
    req.on("end", () => {
      ended = true;
      clearTimeout(timer);
      if (!failed) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    // The client went away mid-body ('close' without 'end'), or the socket failed.
    const fail = (err: Error) => {
      clearTimeout(timer);
      if (failed || ended) return;
      failed = true;
      reject(err);
    };
    req.on("error", fail);
    // The error is built only when it is raised: 'close' follows every request, and an Error captures a stack.
    req.on(
      "close",
      () =>
        !failed &&
        !ended &&
        fail(
          new ProxyError(
            400,
            "invalid_request_error",
            "The client closed the connection before sending the whole body",
            "incomplete_body",
          ),
        ),
    );
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

export function sendError(res: ServerResponse, err: ProxyError, headers: Record<string, string> = {}): void {
  const extra: Record<string, string> = { ...headers };
  if (err.retryAfterS !== null) extra["retry-after"] = String(err.retryAfterS);
  // After a 413 the rest of the body may still be arriving: close instead of reading it.
  if (err.status === 413) extra.connection = "close";
  sendJson(res, err.status, err.body(), extra);
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
