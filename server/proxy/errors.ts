// OpenAI's error shape ({"error":{"message","type","param","code"}}) so stock clients surface our errors
// the same way they surface OpenAI's.
import type { ZodError } from "zod";

export type OpenAiErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "rate_limit_error"
  | "api_error"
  | "upstream_error"
  | "timeout_error"
  | "service_unavailable";

export class ProxyError extends Error {
  constructor(
    readonly status: number,
    readonly type: OpenAiErrorType,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
    readonly retryAfterS: number | null = null,
  ) {
    super(message);
    this.name = "ProxyError";
  }

  body() {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export const badRequest = (message: string, param: string | null = null, code: string | null = null) =>
  new ProxyError(400, "invalid_request_error", message, code, param);

export function fromZodError(err: ZodError, what: string): ProxyError {
  const issues = err.issues.map((i) => ({ path: i.path.map(String).join("."), message: i.message }));
  const first = issues[0];
  const summary = issues
    .slice(0, 5)
    .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
    .join("; ");
  return badRequest(`${what}: ${summary}`, first?.path || null, "invalid_schema");
}

/** Seconds a client should wait before retrying after an upstream failure. */
export const UPSTREAM_RETRY_AFTER_S = 2;

export const upstreamUnavailable = (detail: string) =>
  new ProxyError(
    502,
    "upstream_error",
    `The policy backend is unavailable: ${detail}`,
    "upstream_unavailable",
    null,
    UPSTREAM_RETRY_AFTER_S,
  );

export const upstreamTimeout = (ms: number) =>
  new ProxyError(
    504,
    "timeout_error",
    `The policy backend did not answer within ${ms} ms`,
    "upstream_timeout",
    null,
    UPSTREAM_RETRY_AFTER_S,
  );

/** Seconds a client should wait while recording is unavailable (the buffer drains once Postgres is back). */
export const RECORDING_RETRY_AFTER_S = 5;

/**
 * Fail closed: the turn could not be kept (the disk buffer is full, or the journal cannot be written), so the
 * request is refused before the upstream answers it, rather than answered with a 2xx whose turn is lost.
 */
export const recordingUnavailable = (why: string) =>
  new ProxyError(
    503,
    "service_unavailable",
    `Recording is unavailable (${why}): the request was not served, so nothing is lost; retry later`,
    "recording_unavailable",
    null,
    RECORDING_RETRY_AFTER_S,
  );
