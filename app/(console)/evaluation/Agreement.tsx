"use client";
// Judge–human agreement per judge version: accuracy, Cohen's κ, the confusion matrix (rows: the human label,
// columns: the judge's score), and the turns where they disagree, each one click from its trajectory page.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "../../_lib/trpc";

const CLASSES = ["−1", "0", "+1"];

export function Agreement({ experimentId }: { experimentId: string }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.evaluation.agreement.queryOptions({ experimentId, disagreements: 20 }), refetchInterval: 15_000 });
  const d = q.data;
  return (
    <div className="card" data-testid="eval-agreement">
      <h2 style={{ marginTop: 0 }}>Judge–human agreement</h2>
      {d?.warning && <div className="form-error" role="alert" data-testid="agreement-warning">{d.warning}</div>}
      {d && !d.judges.length && <div className="empty">No turn carries both a judgment and a reviewer label or user feedback yet.</div>}
      {d?.judges.map((j) => (
        <details key={j.judgeVersion} open={j.judgeVersion === d.currentJudgeVersion}>
          <summary>
            {j.judgeKind} {j.model} <code>{j.judgeVersion}</code>{j.judgeVersion === d.currentJudgeVersion ? " (current)" : ""}: {j.n} labelled turns · accuracy{" "}
            {j.accuracy === null ? "—" : j.accuracy.toFixed(2)} · κ {j.kappa === null ? "—" : j.kappa.toFixed(2)}
          </summary>
          <table className="list" style={{ maxWidth: 360, margin: "8px 0" }}>
            <thead><tr><th>human ↓ / judge →</th>{CLASSES.map((c) => <th key={c}>{c}</th>)}</tr></thead>
            <tbody>
              {j.confusion.map((row, h) => (
                <tr key={h}><td>{CLASSES[h]}</td>{row.map((n, k) => <td key={k} style={{ fontWeight: h === k ? 600 : 400 }}>{n}</td>)}</tr>
              ))}
            </tbody>
          </table>
          {j.disagreements.length > 0 && (
            <ul>
              {j.disagreements.map((x) => (
                <li key={x.turnId}>
                  <Link href={`/trajectories/${x.turnId}`}>turn {x.turnId.slice(-8)}</Link>: {x.humanSource.toLowerCase()} {x.human > 0 ? "+" : ""}{x.human}, judge {x.judge > 0 ? "+" : ""}{x.judge}
                </li>
              ))}
            </ul>
          )}
        </details>
      ))}
    </div>
  );
}
