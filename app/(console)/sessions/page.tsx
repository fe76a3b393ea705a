"use client";
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense, useCallback, useMemo } from "react";
import { useTRPC } from "../../_lib/trpc";
import { ExperimentSelect } from "../_components/ExperimentSelect";
import { VirtualList } from "../_components/VirtualList";
import { RowLink } from "../_components/RowLink";

const KEYS = ["experimentId", "externalId", "simulated", "done"] as const;
type Key = (typeof KEYS)[number];

function Sessions() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  // Filters live in the URL, so the experiment page can link here and a view can be shared.
  const f = Object.fromEntries(KEYS.map((k) => [k, params.get(k) ?? ""])) as Record<Key, string>;
  const set = (patch: Partial<Record<Key, string>>) => {
    const next = new URLSearchParams(params.toString());
    for (const [k, v] of Object.entries(patch)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    router.replace(`${pathname}?${next.toString()}`);
  };
  const input = {
    experimentId: f.experimentId || undefined,
    externalId: f.externalId.trim() || undefined,
    simulated: f.simulated ? f.simulated === "true" : undefined,
    done: f.done ? f.done === "true" : undefined,
    limit: 100,
  };
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
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>Sessions</h1>
        <span className="spacer" />
        <Link
          className="button"
          href={f.experimentId ? `/trajectories?experimentId=${f.experimentId}` : "/trajectories"}
        >
          All turns
        </Link>
      </div>
      <div className="filters">
        <ExperimentSelect value={f.experimentId} onChange={(v) => set({ experimentId: v })} />
        <label className="field">
          <span>Client session id</span>
          <input
            aria-label="Client session id"
            defaultValue={f.externalId}
            onChange={(e) => set({ externalId: e.target.value })}
          />
        </label>
        <label className="field">
          <span>Source</span>
          <select aria-label="Source" value={f.simulated} onChange={(e) => set({ simulated: e.target.value })}>
            <option value="">Real and simulated</option>
            <option value="false">Real users</option>
            <option value="true">Simulated</option>
          </select>
        </label>
        <label className="field">
          <span>State</span>
          <select aria-label="State" value={f.done} onChange={(e) => set({ done: e.target.value })}>
            <option value="">Open and done</option>
            <option value="false">Open</option>
            <option value="true">Done</option>
          </select>
        </label>
      </div>
      {list.error && <div className="form-error">{list.error.message}</div>}
      <VirtualList
        testId="sessions-list"
        items={rows}
        columns="170px minmax(120px, 1fr) minmax(100px, 180px) 60px 110px 60px"
        header={
          <>
            <span>Last turn</span>
            <span>Client session id</span>
            <span>Experiment</span>
            <span>Turns</span>
            <span>Source</span>
            <span>State</span>
          </>
        }
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
