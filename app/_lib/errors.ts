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
