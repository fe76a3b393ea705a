"use client";
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useMemo, useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { ExperimentSelect } from "../_components/ExperimentSelect";
import { VirtualList } from "../_components/VirtualList";

export default function SessionsPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const [experimentId, setExperimentId] = useState("");
  const [externalId, setExternalId] = useState("");
  const [simulated, setSimulated] = useState("");
  const [done, setDone] = useState("");
  const input = {
    experimentId: experimentId || undefined,
    externalId: externalId.trim() || undefined,
    simulated: simulated ? simulated === "true" : undefined,
    done: done ? done === "true" : undefined,
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
        <Link className="button" href="/trajectories">All turns</Link>
      </div>
      <div className="filters">
        <ExperimentSelect value={experimentId} onChange={setExperimentId} />
        <label className="field"><span>Client session id</span><input aria-label="Client session id" value={externalId} onChange={(e) => setExternalId(e.target.value)} /></label>
        <label className="field"><span>Source</span>
          <select aria-label="Source" value={simulated} onChange={(e) => setSimulated(e.target.value)}>
            <option value="">Real and simulated</option><option value="false">Real users</option><option value="true">Simulated</option>
          </select>
        </label>
        <label className="field"><span>State</span>
          <select aria-label="State" value={done} onChange={(e) => setDone(e.target.value)}>
            <option value="">Open and done</option><option value="false">Open</option><option value="true">Done</option>
          </select>
        </label>
      </div>
      {list.error && <div className="form-error">{list.error.message}</div>}
      <VirtualList
        testId="sessions-list"
        items={rows}
        columns="170px minmax(0, 1fr) 70px 110px 70px"
        header={<><span>Last turn</span><span>Client session id</span><span>Turns</span><span>Source</span><span>State</span></>}
        getKey={(s) => s.id}
        onSelect={(s) => router.push(`/sessions/${s.id}`)}
        onEndReached={more}
        renderRow={(s) => (
          <>
            <span className="muted">{new Date(s.lastTurnAt).toLocaleString()}</span>
            <span className="mono clip">{s.externalId}</span>
            <span>{s.turnCount}</span>
            <span className="muted clip">{s.simulated ? `simulated${s.persona ? ` · ${s.persona}` : ""}` : "real"}</span>
            <span className="muted">{s.done ? "done" : "open"}</span>
          </>
        )}
      />
      {list.data && !rows.length && <div className="empty">No sessions recorded yet.</div>}
    </>
  );
}
