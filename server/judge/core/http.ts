// Minimal JSON-over-HTTP helpers for the judge and teacher clients (plain fetch, no SDK). Calls go through the
// egress policy at call time with redirects refused (platform/egress.ts); an injected `fetch` is a test seam.
import { egressFetch } from "../../platform/egress";

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** A non-2xx answer. `status` decides whether the call is retried and whether the breaker counts it. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    readonly body: string,
  ) {
    // The body stays on the error for the caller's own use, never in its message (which reaches the Workers
    // page): an internal service's answer must not come back through a judge URL.
    super(`HTTP ${status} from ${url}`);
    this.name = "HttpStatusError";
  }
}

/** A 2xx answer that is not the JSON shape the contract promises. Retrying would not help. */
export class BadResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BadResponseError";
  }
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

/** OpenAI-compatible servers are configured either as `http://host:port` or `http://host:port/v1`. */
export function openAIUrl(baseUrl: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return joinUrl(base.endsWith("/v1") ? base : `${base}/v1`, path);
}

export async function postJson(
  url: string,
  body: unknown,
  opts: { apiKey?: string; signal?: AbortSignal; fetch?: FetchLike } = {},
): Promise<unknown> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  const res = await (opts.fetch ?? egressFetch)(url, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    signal: opts.signal,
  });
  const text = await res.text();
  if (!res.ok) throw new HttpStatusError(res.status, url, text);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BadResponseError(`non-JSON body from ${url} (${text.length} bytes)`);
  }
}
