// The one JSON error shape every /api endpoint answers with: { error: { code, reason, message, issues } }.
import { z } from "zod";
import { AppError, ERROR_REASONS, fromZod, HTTP_STATUS, type ErrorReason } from "../platform/errors";

/** The error answer of a reason (its code and status follow from it). */
export function reasonError(reason: ErrorReason, message: string, headers: Record<string, string> = {}): Response {
  return appErrorResponse(new AppError(ERROR_REASONS[reason], message, [], reason), headers);
}

function appErrorResponse(err: AppError, headers: Record<string, string> = {}): Response {
  const { code, reason, message, issues } = err;
  return Response.json({ error: { code, reason, message, issues } }, { status: HTTP_STATUS[code], headers });
}

export function errorResponse(err: unknown): Response {
  if (err instanceof AppError) return appErrorResponse(err);
  if (err instanceof z.ZodError) return errorResponse(fromZod(err));
  console.error("[api] unhandled error", err);
  return reasonError("internal", "Internal server error");
}
