"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../../_lib/trpc";
import { AuditTable } from "../../_components/AuditTable";
import { ExperimentSelect } from "../../_components/ExperimentSelect";

export default function RelabelAuditPage() {
  const trpc = useTRPC();
  const [experimentId, setExperimentId] = useState("");
  const [cursors, setCursors] = useState<string[]>([]);
  const list = useQuery({
    ...trpc.labels.audit.queryOptions({
      experimentId: experimentId || undefined,
      limit: 50,
      cursor: cursors[cursors.length - 1],
    }),
    placeholderData: keepPreviousData,
    refetchInterval: 5000,
  });
  return (
    <>
      <h1>Relabel audit log</h1>
      <p className="muted">
        Every relabel, from the review queue, the turn page or the API, with the label training used before and after
        it.
      </p>
      <div className="toolbar">
        <div style={{ width: 260 }}>
          <ExperimentSelect value={experimentId} onChange={(v) => (setExperimentId(v), setCursors([]))} />
        </div>
      </div>
      {list.error && <div className="form-error">{list.error.message}</div>}
      {list.data && <AuditTable entries={list.data.items} showTurn />}
      {/* No pager for a single page. */}
      {(cursors.length > 0 || !!list.data?.nextCursor) && (
        <div className="toolbar" style={{ marginTop: 12 }} data-testid="audit-pager">
          <button disabled={!cursors.length} onClick={() => setCursors(cursors.slice(0, -1))}>
            ← Newer
          </button>
          <button
            disabled={!list.data?.nextCursor}
            onClick={() => list.data?.nextCursor && setCursors([...cursors, list.data.nextCursor])}
          >
            Older →
          </button>
        </div>
      )}
    </>
  );
}
