// Domain errors carry an HTTP-ish code and a stable machine reason; tRPC and REST adapters map them, so services
// never know the transport. The code says what kind of failure it is (and the status); the reason names the
// failure itself, for clients to branch on (as the proxy's OpenAI-style `type`/`code`): messages may change,
// reasons may not. Add a reason here when a client needs to tell one failure from the others of its code.
import type { ZodError } from "zod";
// Every process that reports zod issues loads this module, so they are worded once (see zodMessages).
import "./zodMessages";

export type ErrorCode =
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "TOO_MANY_REQUESTS"
  | "INTERNAL";

export const HTTP_STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL: 500,
};

/** Every reason an API error can carry, with its code. The first of each code is that code's default. */
export const ERROR_REASONS = {
  invalid_input: "BAD_REQUEST",
  malformed_cursor: "BAD_REQUEST",
  /** a per-user adapter folder registered for an experiment whose engine does not load PEFT folders, or outside ADAPTER_DIRS */
  adapter_not_servable: "BAD_REQUEST",
  unauthenticated: "UNAUTHORIZED",
  forbidden: "FORBIDDEN",
  missing_permission: "FORBIDDEN",
  other_experiment: "FORBIDDEN",
  other_run: "FORBIDDEN",
  not_assigned: "FORBIDDEN",
  cross_origin: "FORBIDDEN",
  not_found: "NOT_FOUND",
  route_not_found: "NOT_FOUND",
  method_not_allowed: "METHOD_NOT_ALLOWED",
  conflict: "CONFLICT",
  ambiguous_session: "CONFLICT",
  name_taken: "CONFLICT",
  archived: "CONFLICT",
  invalid_transition: "CONFLICT",
  run_in_progress: "CONFLICT",
  run_ended: "CONFLICT",
  not_leasable: "CONFLICT",
  already_reviewed: "CONFLICT",
  lock_lost: "CONFLICT",
  import_in_progress: "CONFLICT",
  payload_too_large: "PAYLOAD_TOO_LARGE",
  unsupported_media_type: "UNSUPPORTED_MEDIA_TYPE",
  rate_limited: "TOO_MANY_REQUESTS",
  sign_in_throttled: "TOO_MANY_REQUESTS",
  internal: "INTERNAL",
} as const satisfies Record<string, ErrorCode>;

export type ErrorReason = keyof typeof ERROR_REASONS;

/** The reason an error of `code` carries when its thrower names none. */
export function defaultReason(code: ErrorCode): ErrorReason {
  return (Object.keys(ERROR_REASONS) as ErrorReason[]).find((r) => ERROR_REASONS[r] === code)!;
}

export interface Issue {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues: Issue[] = [],
    /** One of `code`'s reasons (appError picks the code from the reason). */
    readonly reason: ErrorReason = defaultReason(code),
  ) {
    super(message);
    this.name = "AppError";
  }
}

/** An error named by its reason; the code (and so the status) follows from it. */
export const appError = (reason: ErrorReason, message: string, issues: Issue[] = []) =>
  new AppError(ERROR_REASONS[reason], message, issues, reason);

export const notFound = (what: string, id?: string) =>
  new AppError("NOT_FOUND", id ? `${what} '${id}' not found` : `${what} not found`);
export const forbidden = (why: string) => new AppError("FORBIDDEN", why);
export const unauthorized = (why = "Missing or invalid credentials") => new AppError("UNAUTHORIZED", why);
export const conflict = (why: string, issues: Issue[] = []) => new AppError("CONFLICT", why, issues);
export const badRequest = (why: string, issues: Issue[] = []) => new AppError("BAD_REQUEST", why, issues);

export function zodIssues(err: ZodError): Issue[] {
  return err.issues.map((i) => ({ path: i.path.map(String).join(".") || "(root)", message: i.message }));
}

export function fromZod(err: ZodError, what = "Invalid input"): AppError {
  const issues = zodIssues(err);
  const summary = issues
    .slice(0, 3)
    .map((i) => `${i.path}: ${i.message}`)
    .join("; ");
  return new AppError("BAD_REQUEST", `${what}: ${summary}`, issues);
}

/** An error's message for a log line or a status message (anything thrown, not only Errors). */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
