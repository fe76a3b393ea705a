"use client";
import { fmtScore, fmtTime } from "./format";

type Snapshot = {
  value?: number | null;
  source?: string | null;
  kind?: string | null;
  reward?: number;
  excluded?: boolean;
  excludeReason?: string | null;
  hint?: string | null;
  via?: string;
  verdict?: string;
};
export type AuditEntry = {
  id: string;
  action: string;
  actor: string | null;
  before?: unknown;
  after?: unknown;
  createdAt: Date | string;
  resourceId?: string | null;
  turnIndex?: number | null;
  experimentId?: string | null;
  experimentName?: string | null;
};

function describe(s: unknown): string {
  if (!s || typeof s !== "object") return "—";
  const x = s as Snapshot;
  const label =
    x.value === null || x.value === undefined ? "no label" : `${fmtScore(x.value)} (${(x.source ?? "").toLowerCase()})`;
  const use = x.excluded ? `excluded: ${x.excludeReason ?? ""}` : `${x.kind ?? "—"} r=${fmtScore(x.reward)}`;
  return `${label} → ${use}`;
}

/** Relabels with the effective training label before and after each one. */
export function AuditTable({ entries, showTurn = false }: { entries: AuditEntry[]; showTurn?: boolean }) {
  if (!entries.length) return <div className="empty">No relabels yet.</div>;
  return (
    <table className="list" data-testid="audit-table">
      <thead>
        <tr>
          <th>When</th>
          <th>Who</th>
          {showTurn && (
            <>
              <th>Experiment</th>
              <th>Turn</th>
            </>
          )}
          <th>Via</th>
          <th>Before</th>
          <th>After</th>
          <th>Reviewer&apos;s hint</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => {
          const after = (e.after ?? {}) as Snapshot;
          return (
            <tr key={e.id}>
              <td className="muted">{fmtTime(e.createdAt)}</td>
              <td>{e.actor ?? "API key"}</td>
              {showTurn && (
                <>
                  <td>{e.experimentId ? <a href={`/experiments/${e.experimentId}`}>{e.experimentName}</a> : "—"}</td>
                  {/* The whole id: it is what the API, exports and logs name the turn by. */}
                  <td>
                    <a className="mono" style={{ wordBreak: "break-all" }} href={`/trajectories/${e.resourceId}`}>
                      {e.resourceId}
                    </a>
                    {e.turnIndex !== null && e.turnIndex !== undefined && (
                      <div className="muted">turn #{e.turnIndex}</div>
                    )}
                  </td>
                </>
              )}
              <td className="muted">
                {after.via ?? ""}
                {after.verdict ? ` · ${after.verdict.toLowerCase()}` : ""}
              </td>
              <td className="diff-before">{describe(e.before)}</td>
              <td className="diff-after">{describe(e.after)}</td>
              <td className="muted" data-testid="audit-hint">
                {after.hint ?? ""}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
