// The one way /api reads a request body: streamed, counted and cut off at a cap, so no entry point (signed in
// or not) ever buffers more than its limit. A declared Content-Length over the cap is refused before reading.
import { AppError, badRequest } from "../platform/errors";

/** Per entry point; the largest tRPC input is an eval-set upload (20 MB of JSONL, zod-checked after parsing). */
export const BODY_LIMITS = {
  login: 4 * 1024,
  rest: 1_000_000,
  trpc: 21 * 1024 * 1024,
  playground: 21 * 1024 * 1024,
} as const;

function tooLarge(limit: number, what: string): AppError {
  return new AppError("PAYLOAD_TOO_LARGE", `${what} body exceeds the ${limit}-byte limit of this endpoint`);
}

/** The body's bytes, refusing with 413 as soon as more than `limit` arrive. */
export async function readCapped(req: Request, limit: number, what = "Request"): Promise<Buffer> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await req.body?.cancel().catch(() => {});
    throw tooLarge(limit, what);
  }
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit, what);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The body's lines (UTF-8, split on \n) as they arrive, for bulk uploads: the body is never held as one string,
 * and a 413 comes as soon as more than `limit` bytes have arrived (after the lines before it were yielded, so a
 * caller that writes only once the whole body is read loses nothing).
 */
export async function* readCappedLines(req: Request, limit: number, what = "Request"): AsyncGenerator<string> {
  const declared = Number(req.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await req.body?.cancel().catch(() => {});
    throw tooLarge(limit, what);
  }
  if (!req.body) return;
  const reader = req.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  // The pieces of the line not yet ended: joined once its newline arrives, so a long line costs linear time.
  let open: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw tooLarge(limit, what);
      const parts = decoder.decode(value, { stream: true }).split("\n");
      if (parts.length === 1) {
        open.push(parts[0]!);
        continue;
      }
      yield open.join("") + parts[0]!;
      for (let k = 1; k < parts.length - 1; k++) yield parts[k]!;
      open = [parts.at(-1)!];
    }
    yield open.join("") + decoder.decode();
  } finally {
    await reader.cancel().catch(() => {});
  }
}

export async function readCappedText(req: Request, limit: number, what?: string): Promise<string> {
  return (await readCapped(req, limit, what)).toString("utf8");
}

/** JSON from a capped body: an empty body is `{}`, malformed JSON a 400. */
export async function readCappedJson(req: Request, limit: number, what?: string): Promise<unknown> {
  const text = await readCappedText(req, limit, what);
  if (!text.trim()) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw badRequest(`Malformed JSON body: ${(e as Error).message}`);
  }
}

/** A copy of `req` whose body is the already-read `bytes` (for handlers that take a Request, e.g. tRPC). */
export function withBody(req: Request, bytes: Buffer): Request {
  const method = req.method;
  return new Request(req.url, {
    method,
    headers: req.headers,
    body: method === "GET" || method === "HEAD" ? undefined : new Uint8Array(bytes),
    signal: req.signal,
  });
}
