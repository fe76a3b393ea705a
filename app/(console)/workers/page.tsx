"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../_lib/trpc";

export default function WorkersPage() {
  const trpc = useTRPC();
  const workers = useQuery({ ...trpc.workers.list.queryOptions(), refetchInterval: 2000 });
  return (
    <>
      <h1>Workers</h1>
      <p className="muted">Each worker process heartbeats to Redis every 2 s; one silent for 6 s is shown stale, and disappears after 10 s.</p>
      {workers.error && <div className="form-error">{workers.error.message}</div>}
      <table className="list" data-testid="workers-table">
        <thead><tr><th>Kind</th><th>State</th><th>Activity</th><th>Host / pid</th><th>Up since</th><th>Stats</th></tr></thead>
        <tbody>
          {workers.data?.map((w) => (
            <tr key={w.id}>
              <td>{w.kind}</td>
              <td><span className={`badge ${w.stale ? "stale" : "alive"}`}>{w.stale ? "stale" : "alive"}</span></td>
              <td>{w.activity}</td>
              <td className="mono">{w.host} / {w.pid}</td>
              <td className="muted">{new Date(w.startedAt).toLocaleTimeString()}</td>
              <td className="mono">{Object.entries(w.stats).map(([k, v]) => `${k}=${v}`).join(" ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {workers.data && !workers.data.length && <div className="empty">No worker is running. Start them with <code>npm start</code>.</div>}
    </>
  );
}
