"use client";
import { issuesOf, messageOf } from "../_lib/errors";

/**
 * The one error banner of a form or action: the server's message, and each zod issue with its field path (the
 * 400 of a bad upload names the line). Renders nothing without an error.
 */
export function ErrorBanner({ error, max = 5, testId }: { error: unknown; max?: number; testId?: string }) {
  if (error === null || error === undefined) return null;
  const issues = issuesOf(error);
  const shown = issues.slice(0, max);
  return (
    <div className="form-error" role="alert" data-testid={testId}>
      {issues.length ? (
        <>
          {shown.map((i) => `${i.path}: ${i.message}`).join("; ")}
          {issues.length > max ? ` (and ${issues.length - max} more)` : ""}
        </>
      ) : (
        messageOf(error)
      )}
    </div>
  );
}
