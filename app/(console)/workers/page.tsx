"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "../../_lib/trpc";
import { GpuGrid } from "../experiments/_components/GpuGrid";

/** "recordedTurns" → "recorded turns": heartbeat stats are camelCase counters. */
const words = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_.]/g, " ")
    .toLowerCase();

/** The serve worker's count of acknowledged turns it could not keep durably: any is a broken promise. */
const alarming = (key: string, value: unknown) => key === "recording.lossy" && typeof value === "number" && value > 0;

function Stats({ stats }: { stats: Record<string, unknown> }) {
  const entries = Object.entries(stats);
  if (!entries.length) return <span className="muted">—</span>;
  return (
    <table className="stats" data-testid="worker-stats">
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <th scope="row">{words(k)}</th>
            <td className={alarming(k, v) ? "field-error" : undefined}>
              {typeof v === "number" ? v.toLocaleString() : String(v)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const ago = (ms: number) =>
  ms < 1000 ? `${ms} ms` : ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;

export default function WorkersPage() {
  const trpc = useTRPC();
  const workers = useQuery({ ...trpc.workers.list.queryOptions(), refetchInterval: 2000 });
  const fleet = useQuery({ ...trpc.fleet.overview.queryOptions(), refetchInterval: 3000 });
  const f = fleet.data;
  return (
    <>
      <h1>Workers</h1>
      <p className="muted">
        Each worker process heartbeats to Redis every 2 s; one silent for 6 s is shown stale, and disappears after 10 s.
      </p>
      {workers.error && <div className="form-error">{workers.error.message}</div>}
      <table className="list" data-testid="workers-table">
        <thead>
          <tr>
            <th>Kind</th>
            <th>State</th>
            <th>Activity</th>
            <th>Host / pid</th>
            <th>Up since</th>
            <th>Stats</th>
          </tr>
        </thead>
        <tbody>
          {workers.data?.map((w) => (
            <tr key={w.id}>
              <td>{w.kind}</td>
              <td>
                <span className={`badge ${w.stale ? "stale" : "alive"}`}>{w.stale ? "stale" : "alive"}</span>
              </td>
              <td>{w.activity}</td>
              <td className="mono">
                {w.host} / {w.pid}
              </td>
              <td className="muted">{new Date(w.startedAt).toLocaleTimeString()}</td>
              <td>
                <Stats stats={w.stats} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {workers.data && !workers.data.length && (
        <div className="empty">
          No worker is running. Start them with <code>npm start</code>.
        </div>
      )}

      {fleet.error && <div className="form-error">{fleet.error.message}</div>}
      <h2>Queues</h2>
      <table className="list" data-testid="queues-depth">
        <thead>
          <tr>
            <th>Queue</th>
            <th>Waiting</th>
            <th>Active</th>
            <th>Delayed (retrying)</th>
            <th>Failed</th>
            <th>Lag (oldest waiting)</th>
          </tr>
        </thead>
        <tbody>
          {f?.queues.map((q) => (
            <tr key={q.name}>
              <td className="mono">{q.name}</td>
              <td>{q.waiting}</td>
              <td>{q.active}</td>
              <td>{q.delayed}</td>
              <td className={q.failed ? "field-error" : undefined}>{q.failed}</td>
              <td>{q.waiting ? ago(q.lagMs) : "—"}</td>
            </tr>
          ))}
          {f?.backlogs.map((b) => (
            <tr key={b.experimentId}>
              <td>
                judge backlog ·{" "}
                <Link href={`/trajectories?experimentId=${b.experimentId}&score=unjudged&turnType=MAIN`}>
                  {b.experimentName}
                </Link>
              </td>
              <td>{b.judgeDepth}</td>
              <td />
              <td colSpan={2}>
                {b.lastError && (
                  <span className="field-error" title="the newest retried or failed judge job of this experiment">
                    last error: {b.lastError}
                  </span>
                )}
              </td>
              <td>{ago(b.judgeLagMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {f && f.problems.length > 0 && (
        <>
          <h3>Retried and failed jobs: their last error</h3>
          <table className="list" data-testid="job-problems">
            <thead>
              <tr>
                <th>Queue</th>
                <th>Experiment</th>
                <th>State</th>
                <th>Last error</th>
                <th>At</th>
              </tr>
            </thead>
            <tbody>
              {f.problems.map((j) => (
                <tr key={`${j.queue}|${j.jobId}`} data-job-id={j.jobId}>
                  <td className="mono">{j.queue}</td>
                  <td>
                    {j.experimentId ? (
                      <Link href={`/experiments/${j.experimentId}`}>{j.experimentName ?? j.experimentId}</Link>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td>
                    {j.state === "retrying"
                      ? `retrying (attempt ${j.attemptsMade} of ${j.attempts} failed)`
                      : `failed after ${j.attemptsMade} attempt${j.attemptsMade === 1 ? "" : "s"}`}
                  </td>
                  <td>
                    <span className="field-error">{j.reason}</span>
                    {j.stack && (
                      <details>
                        <summary className="muted">stack</summary>
                        <pre className="mono" style={{ whiteSpace: "pre-wrap", fontSize: 11 }}>
                          {j.stack}
                        </pre>
                      </details>
                    )}
                  </td>
                  <td className="muted">{new Date(j.at).toLocaleTimeString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {f && f.gauges.length > 0 && (
        <>
          <h3>Reported by the workers (last 5 minutes)</h3>
          <table className="list">
            <thead>
              <tr>
                <th>Experiment</th>
                <th>Metric</th>
                <th>Value</th>
                <th>At</th>
              </tr>
            </thead>
            <tbody>
              {f.gauges.map((g) => (
                <tr key={`${g.experimentId}|${g.runId}|${g.name}`}>
                  <td>
                    <Link href={`/metrics?experimentId=${g.experimentId}`}>{g.experimentName}</Link>
                  </td>
                  <td className="mono">{g.name}</td>
                  <td>{Number.isInteger(g.value) ? g.value : g.value.toFixed(3)}</td>
                  <td className="muted">{new Date(g.at).toLocaleTimeString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}

      <h2>Live runs</h2>
      {f && !f.runs.length && <div className="empty">No run is running.</div>}
      {f?.runs.map((r) => (
        <div className="card" key={r.id} data-testid={`live-run-${r.id}`}>
          <div className="toolbar" style={{ marginBottom: 8 }}>
            <strong>
              <Link href={`/experiments/${r.experimentId}`}>{r.experimentName}</Link> · run #{r.number}
            </strong>
            <span className={`badge ${r.status}`}>{r.status.toLowerCase()}</span>
            <span className="muted">trainer {r.trainerBackend}</span>
            <span className="spacer" />
            <Link className="button" href={`/metrics?experimentId=${r.experimentId}&runId=${r.id}`}>
              Metrics
            </Link>
          </div>
          <dl className="kv">
            <dt>Batch fill</dt>
            <dd>
              {r.pendingSamples}
              {r.batchSize
                ? ` / ${r.batchSize} samples (${Math.min(100, Math.round((100 * r.pendingSamples) / r.batchSize))} %)`
                : " samples waiting"}
            </dd>
            <dt>Last step</dt>
            <dd>
              {r.lastStep
                ? `step ${r.lastStep}${r.lastStepAt ? `, ${ago(Date.now() - new Date(r.lastStepAt).getTime())} ago` : ""}`
                : "no step yet"}
            </dd>
            <dt>GPU plan</dt>
            <dd>
              {r.gpu ? (
                <GpuGrid split={r.gpu} />
              ) : (
                <span className="muted">embedded trainer: CPU only, no GPU plan</span>
              )}
            </dd>
          </dl>
        </div>
      ))}
    </>
  );
}
