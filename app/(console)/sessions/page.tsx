"use client";
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { Suspense, useCallback, useMemo } from "react";
import { SessionListInput } from "../../../server/trajectories/schemas";
import { useTRPC } from "../../_lib/trpc";
import { DebouncedInput, Select } from "../../_ui/Field";
import { Spacer, Toolbar } from "../../_ui/Toolbar";
import { useSearchState } from "../../_ui/useSearchState";
import { ExperimentSelect } from "../_components/ExperimentSelect";
import { VirtualList } from "../_components/VirtualList";
import { RowLink } from "../_components/RowLink";

// The filters the page puts in the URL (the list's own input schema, less paging).
const SessionFilters = SessionListInput.pick({ experimentId: true, externalId: true, simulated: true, done: true });

function Sessions() {
  const trpc = useTRPC();
  const router = useRouter();
  // Filters live in the URL, so the experiment page can link here and a view can be shared.
  const [f, set] = useSearchState(SessionFilters);
  const input = useMemo(() => ({ ...f, externalId: f.externalId?.trim() || undefined, limit: 100 }), [f]);
  const list = useInfiniteQuery({
    ...trpc.sessions.list.infiniteQueryOptions(input, { getNextPageParam: (p) => p.nextCursor ?? undefined }),
    placeholderData: keepPreviousData,
  });
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.items) ?? [], [list.data]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  const more = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  return (
    <>
      <Toolbar title="Sessions">
        <Spacer />
        <Link
          className="button"
          href={f.experimentId ? `/trajectories?experimentId=${f.experimentId}` : "/trajectories"}
        >
          All turns
        </Link>
      </Toolbar>
      <div className="filters">
        <ExperimentSelect value={f.experimentId ?? ""} onChange={(v) => set({ experimentId: v })} />
        <DebouncedInput label="Client session id" value={f.externalId ?? ""} onCommit={(v) => set({ externalId: v })} />
        <Select
          label="Source"
          value={f.simulated}
          onChange={(v) => set({ simulated: v })}
          options={[
            [undefined, "Real and simulated"],
            [false, "Real users"],
            [true, "Simulated"],
          ]}
        />
        <Select
          label="State"
          value={f.done}
          onChange={(v) => set({ done: v })}
          options={[
            [undefined, "Open and done"],
            [false, "Open"],
            [true, "Done"],
          ]}
        />
      </div>
      {list.error && <div className="form-error">{list.error.message}</div>}
      <VirtualList
        testId="sessions-list"
        label="Sessions"
        items={rows}
        columns="170px minmax(120px, 1fr) minmax(100px, 180px) 60px 110px 60px"
        header={["Last turn", "Client session id", "Experiment", "Turns", "Source", "State"]}
        getKey={(s) => s.id}
        onSelect={(s) => router.push(`/sessions/${s.id}`)}
        onEndReached={more}
        renderRow={(s) => (
          <RowLink href={`/sessions/${s.id}`}>
            <span className="muted clip">{new Date(s.lastTurnAt).toLocaleString()}</span>
            <span className="mono clip" title={s.externalId}>
              {s.externalId}
            </span>
            <span className="clip" title={s.experiment.slug}>
              {s.experiment.name}
            </span>
            <span>{s.turnCount}</span>
            <span className="muted clip">
              {s.simulated ? `simulated${s.persona ? ` · ${s.persona}` : ""}` : "real"}
            </span>
            <span className="muted">{s.done ? "done" : "open"}</span>
          </RowLink>
        )}
      />
      {list.data && !rows.length && <div className="empty">No sessions match.</div>}
    </>
  );
}

export default function SessionsPage() {
  return (
    <Suspense fallback={<div className="muted">Loading…</div>}>
      <Sessions />
    </Suspense>
  );
}
