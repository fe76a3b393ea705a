// The one JSON error shape every /api endpoint answers with: { error: { code, message, issues } }.
import { z } from "zod";
import { AppError, fromZod, HTTP_STATUS } from "../platform/errors";

export function jsonError(
  status: number,
  code: string,
  message: string,
  issues: unknown[] = [],
  headers: Record<string, string> = {},
): Response {
  return Response.json({ error: { code, message, issues } }, { status, headers });
}

export function errorResponse(err: unknown): Response {
  if (err instanceof AppError) return jsonError(HTTP_STATUS[err.code], err.code, err.message, err.issues);
  if (err instanceof z.ZodError) return errorResponse(fromZod(err));
  console.error("[api] unhandled error", err);
  return jsonError(500, "INTERNAL", "Internal server error");
}
