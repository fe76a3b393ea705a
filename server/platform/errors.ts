// Domain errors carry an HTTP-ish code; tRPC and REST adapters map them, so services never know the transport.
import type { ZodError } from "zod";
// Every process that reports zod issues loads this module, so they are worded once (see zodMessages).
import "./zodMessages";

export type ErrorCode =
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "TOO_MANY_REQUESTS"
  | "INTERNAL";

export const HTTP_STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
  INTERNAL: 500,
};

export interface Issue {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues: Issue[] = [],
  ) {
    super(message);
    this.name = "AppError";
  }
}

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
