"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../../../_lib/trpc";
import { isLiveRunStatus } from "../../../../server/platform/db/runStatus";

const TAILS = [200, 1000, 5000] as const;

/** The tail of a run's trainer logs (Ray job logs, or the saved output of local trainer processes). */
export function RunLogs({ run }: { run: { id: string; number: number; status: string; trainerBackend: string } }) {
  const trpc = useTRPC();
  const [tail, setTail] = useState<number>(TAILS[0]);
  const live = isLiveRunStatus(run.status);
  const external = run.trainerBackend !== "embedded";
  const logs = useQuery({
    ...trpc.runOps.logs.queryOptions({ id: run.id, tail }),
    enabled: external,
    refetchInterval: live ? 3000 : false,
  });
  if (!external) return null;
  return (
    <div className="card" data-testid="run-logs">
      <div className="toolbar">
        <h3 style={{ margin: 0 }}>Logs of run #{run.number}</h3>
        {logs.data && (
          <span className="muted">
            {logs.data.source === "ray" ? "from Ray" : logs.data.source === "file" ? "saved by the train worker" : ""}
          </span>
        )}
        <span className="spacer" />
        <label className="muted">
          last{" "}
          <select value={tail} onChange={(ev) => setTail(Number(ev.target.value))}>
            {TAILS.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>{" "}
          lines
        </label>
      </div>
      {logs.error && <div className="form-error">{logs.error.message}</div>}
      {logs.data?.note && <div className="muted">{logs.data.note}</div>}
      {logs.data?.text ? (
        <pre className="mono" style={{ maxHeight: 420 }}>
          {logs.data.text}
        </pre>
      ) : (
        logs.data && !logs.data.note && <div className="empty">No output yet.</div>
      )}
    </div>
  );
}
