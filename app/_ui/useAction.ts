"use client";
// One way to run a mutation from a button or form: no try/catch at the call site, the error kept for one
// <ErrorBanner>, and the queries the mutation changes refetched once it succeeded.
import { useMutation, useQueryClient, type QueryKey, type UseMutationOptions } from "@tanstack/react-query";
import { useCallback, useState } from "react";

export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: unknown };

/**
 * `{ run, pending, error, fail, clear }`. `run(input)` resolves to `{ ok: true, data }` or `{ ok: false, error }`
 * and never throws: a failure also lands in `error` (an Error from the server, with its zod issues, or the text given to `fail`). `invalidate` names the
 * query keys (e.g. `trpc.review.pathKey()`) refetched after a success, before `run` resolves.
 */
export function useAction<TData, TError, TInput, TContext>(
  options: UseMutationOptions<TData, TError, TInput, TContext>,
  { invalidate = [] }: { invalidate?: QueryKey[] } = {},
) {
  const qc = useQueryClient();
  const mutation = useMutation(options);
  const { mutateAsync } = mutation;
  const [error, setError] = useState<unknown>(null);
  const keys = JSON.stringify(invalidate);
  const run = useCallback(
    async (input: TInput): Promise<ActionResult<TData>> => {
      setError(null);
      try {
        const data = await mutateAsync(input);
        await Promise.all((JSON.parse(keys) as QueryKey[]).map((queryKey) => qc.invalidateQueries({ queryKey })));
        return { ok: true, data };
      } catch (err) {
        setError(err);
        return { ok: false, error: err };
      }
    },
    [mutateAsync, qc, keys],
  );
  /** A check the client makes before calling (e.g. "pick a label first") shows in the same banner. */
  const fail = useCallback((message: string) => setError(new Error(message)), []);
  const clear = useCallback(() => setError(null), []);
  return { run, pending: mutation.isPending, error, fail, clear, mutate: mutation.mutate };
}
