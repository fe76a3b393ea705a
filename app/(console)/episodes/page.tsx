"use client";
// Episodes: per experiment, the newest agent episodes (filter by launch, environment or status), with their
// outcome, truncation and attempts; a summary of each launch's groups (pass@1 per task, failures, truncation).
// Live: refreshed every 3 s.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Suspense } from "react";
import { z } from "zod";
import { useTRPC } from "../../_lib/trpc";
import { useSearchState } from "../../_ui/useSearchState";
import { ExperimentSelect } from "../_components/ExperimentSelect";

export default function EpisodesPage() {
  return (
    <Suspense fallback={<div className="muted">Loading…</div>}>
      <Episodes />
    </Suspense>
  );
}

const STATUSES = ["QUEUED", "RUNNING", "DONE", "FAILED"] as const;
const Search = z.object({
  experimentId: z.string().optional(),
  launchId: z.string().optional(),
  environmentId: z.string().optional(),
  status: z.enum(STATUSES).optional(),
});

function Episodes() {
  const trpc = useTRPC();
  const [search, set] = useSearchState(Search);
  const experimentId = search.experimentId ?? "";
  const list = useQuery({
    ...trpc.episodes.list.queryOptions({
      experiment: experimentId,
      launchId: search.launchId,
      environmentId: search.environmentId,
      status: search.status,
      limit: 500,
    }),
    enabled: !!experimentId,
    refetchInterval: 3000,
  });
  const rows = list.data ?? [];
  const done = rows.filter((e) => e.status === "DONE");
  const passed = done.filter((e) => (e.outcome ?? 0) >= 1).length;
  const truncated = done.filter((e) => e.truncation !== null).length;
  return (
    <>
      <h1>Episodes</h1>
      <p className="muted">
        Each episode is one agent attempt at one task: its policy calls are recorded turns of the episode&apos;s own
        session, its tool calls run in the environment, a verifier scores the outcome. Episodes of one task in one
        launch form a GRPO group; once the group has ended its step advantages train the policy.
      </p>
      <div className="filters">
        <ExperimentSelect
          value={experimentId}
          onChange={(id) => set({ experimentId: id, launchId: null, environmentId: null })}
          allowAll={false}
        />
        <label className="field">
          <span>Launch</span>
          <input
            aria-label="Launch"
            value={search.launchId ?? ""}
            placeholder="any"
            onChange={(e) => set({ launchId: e.target.value })}
          />
        </label>
        <label className="field">
          <span>Status</span>
          <select
            aria-label="Status"
            value={search.status ?? ""}
            onChange={(e) => set({ status: (e.target.value || null) as (typeof STATUSES)[number] | null })}
          >
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.toLowerCase()}
              </option>
            ))}
          </select>
        </label>
      </div>
      {!experimentId && <div className="empty">Choose an experiment.</div>}
      {list.error && <div className="form-error">{list.error.message}</div>}
      {experimentId && search.launchId && <LaunchSummary experimentId={experimentId} launchId={search.launchId} />}
      {experimentId && (
        <div className="card" data-testid="episodes">
          <p data-testid="episodes-summary">
            {rows.length} episodes · {done.length} done · pass@1 {done.length ? (passed / done.length).toFixed(2) : "—"}{" "}
            · truncated {done.length ? (truncated / done.length).toFixed(2) : "—"} ·{" "}
            {rows.filter((e) => e.status === "FAILED").length} failed
          </p>
          {rows.length ? (
            <table className="list">
              <thead>
                <tr>
                  <th>Episode</th>
                  <th>Task</th>
                  <th>Status</th>
                  <th>Outcome</th>
                  <th>Group</th>
                  <th>Attempts</th>
                  <th>Truncation</th>
                  <th>Created</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <Link href={`/episodes/${e.id}`}>{e.id}</Link>
                    </td>
                    <td>
                      {e.task.key} <span className="muted">({e.task.split})</span>
                    </td>
                    <td data-testid="episode-status">{e.status.toLowerCase()}</td>
                    <td>{e.outcome ?? "—"}</td>
                    <td className="muted">
                      {e.groupKey ?? "—"}
                      {e.sampleIndex !== null ? ` #${e.sampleIndex}` : ""}
                    </td>
                    <td>{e.attempts}</td>
                    <td>{e.truncation ?? ""}</td>
                    <td className="muted">{new Date(e.createdAt).toLocaleString()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <div className="empty">No episode yet: launch some from an environment.</div>
          )}
        </div>
      )}
    </>
  );
}

const rate = (r: { mean: number | null; low: number | null; high: number | null; tasks: number }) =>
  r.mean === null ? "—" : `${r.mean.toFixed(2)} [${r.low!.toFixed(2)}, ${r.high!.toFixed(2)}] over ${r.tasks} tasks`;

/** A launch's pass@1 and pass@4 over its tasks, with 95% intervals (a held-out launch is an evaluation). */
function LaunchSummary({ experimentId, launchId }: { experimentId: string; launchId: string }) {
  const trpc = useTRPC();
  const s = useQuery({
    ...trpc.episodes.launchSummary.queryOptions({ experiment: experimentId, launchId, k: 4 }),
    refetchInterval: 3000,
    retry: false,
  });
  if (s.error) return <div className="form-error">{s.error.message}</div>;
  const d = s.data;
  if (!d) return null;
  return (
    <div className="card" data-testid="launch-summary">
      <h2 style={{ marginTop: 0 }}>Launch {d.launchId}</h2>
      <dl className="kv">
        <dt>pass@1</dt>
        <dd data-testid="launch-pass1">{rate(d.passAt1)}</dd>
        <dt>pass@{d.passAtK.k}</dt>
        <dd>{rate(d.passAtK)}</dd>
        <dt>Episodes</dt>
        <dd>
          {d.episodes} · {d.pending} pending · {d.failed} failed · {d.truncated} truncated
        </dd>
        <dt>Policy versions</dt>
        <dd>{d.policyVersions.join(", ") || "—"}</dd>
      </dl>
    </div>
  );
}
