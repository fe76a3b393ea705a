"use client";
// The trajectory browser's data: the filters (in the URL, typed by the service's own TurnFilterSchema), the
// turn pages they select, and the turns ticked for a review queue.
import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useState } from "react";
import { TurnFilterSchema } from "../../../../server/trajectories/schemas";
import { useTRPC } from "../../../_lib/trpc";
import { useSearchState } from "../../../_ui/useSearchState";

export const useTurnFilters = () => useSearchState(TurnFilterSchema);
export type TurnFilters = ReturnType<typeof useTurnFilters>[0];
export type SetTurnFilters = ReturnType<typeof useTurnFilters>[1];

/** The turns matching `filters`, a page at a time; `more()` loads the next page (the list calls it near its end). */
export function useTurnList(filters: TurnFilters) {
  const trpc = useTRPC();
  const input = useMemo(() => ({ ...filters, limit: 100 }), [filters]);
  const list = useInfiniteQuery({
    ...trpc.turns.list.infiniteQueryOptions(input, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
    placeholderData: keepPreviousData,
  });
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.items) ?? [], [list.data]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  const more = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  return { list, rows, more };
}

export type TurnRow = ReturnType<typeof useTurnList>["rows"][number];

/** The runs of the chosen experiment (the Run filter's choices). */
export function useRunChoices(experimentId: string | undefined) {
  const trpc = useTRPC();
  const runs = useQuery({
    ...trpc.runs.list.queryOptions({ experimentId: experimentId ?? "", limit: 50 }),
    enabled: !!experimentId,
  });
  return useMemo(
    () => runs.data?.items.map((r) => [r.id, `#${r.number} ${r.status.toLowerCase()}`] as const) ?? [],
    [runs.data],
  );
}

/**
 * Turns ticked to go into a review queue. Ticking needs one experiment (a queue holds that experiment's turns)
 * and the review permission; the ticks clear when the experiment changes.
 */
export function usePickedTurns(experimentId: string | undefined, mayReview: boolean) {
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => setPicked(new Set()), [experimentId]);
  const toggle = useCallback(
    (id: string) =>
      setPicked((p) => {
        const next = new Set(p);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    [],
  );
  const clear = useCallback(() => setPicked(new Set()), []);
  return { canPick: !!experimentId && mayReview, picked, toggle, clear };
}
