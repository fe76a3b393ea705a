import { TRPCClientError } from "@trpc/client";

export interface FieldIssue {
  path: string;
  message: string;
}

/** Field issues from a tRPC error (zod issues travel in error.data.issues). */
export function issuesOf(err: unknown): FieldIssue[] {
  if (err instanceof TRPCClientError) {
    const data = err.data as { issues?: FieldIssue[] | null } | undefined;
    if (data?.issues?.length) return data.issues;
  }
  return [];
}

export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** One line for a form's error banner: every field issue ("path: message"), else the error's message. */
export function errorText(err: unknown, max = Infinity): string {
  const issues = issuesOf(err);
  const more = issues.length > max ? ` (and ${issues.length - max} more)` : "";
  return issues.length
    ? issues
        .slice(0, max)
        .map((i) => `${i.path}: ${i.message}`)
        .join("; ") + more
    : messageOf(err);
}

/** For a form that marks its fields: the field issues when there are any, else the message. */
export function formErrorOf(err: unknown): FieldIssue[] | string {
  const issues = issuesOf(err);
  return issues.length ? issues : messageOf(err);
}
