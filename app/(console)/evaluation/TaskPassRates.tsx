"use client";
// An environment experiment's held-out evaluation (`evaluation.tasks`): per policy version, k episodes of every
// held-out task run on that version's own weights; pass@1 (passes / attempts, Wilson 95% interval) is the
// promotion gate's score, pass@k (unbiased, per task) goes beside it. Hidden for an experiment that evaluates
// on an eval set.
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../_lib/trpc";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { useAction } from "../../_ui/useAction";
import { GuardedButton } from "../_components/Permission";

const f = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(2));
const ci = (r: { mean: number | null; low: number | null; high: number | null }) =>
  r.mean === null ? "—" : `${f(r.mean)} [${f(r.low)}, ${f(r.high)}]`;

export function TaskPassRates({ experimentId }: { experimentId: string }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.evaluation.taskPassRates.queryOptions({ experimentId }), refetchInterval: 5000 });
  const request = useAction(trpc.evaluation.request.mutationOptions(), {
    invalidate: [trpc.evaluation.taskPassRates.queryKey()],
  });
  const d = q.data;
  if (!d?.configured) return null;
  return (
    <div className="card" data-testid="task-pass-rates">
      <h2 style={{ marginTop: 0 }}>Held-out tasks: pass@1 and pass@{d.k} per version</h2>
      <p className="muted">
        {d.taskSet && d.environment
          ? `${d.taskSet.name} v${d.taskSet.version}, ${d.heldOutTasks} held-out tasks × ${d.k} episodes in ${d.environment.name}, each on the version's own weights. The gate reads pass@1.`
          : "The configured task set or environment does not exist yet."}
      </p>
      <ErrorBanner error={request.error} />
      {d.versions.length === 0 ? (
        <div className="empty">No version evaluated on the held-out tasks yet.</div>
      ) : (
        <table className="list">
          <thead>
            <tr>
              <th>Version</th>
              <th>Status</th>
              <th>pass@1 (95% Wilson)</th>
              <th>pass@{d.k} (95% CI)</th>
              <th>Episodes</th>
              <th>Gate</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {[...d.versions].reverse().map((v) => (
              <tr key={v.version} data-testid={`task-pass-${v.version}`}>
                <td>v{v.version}</td>
                <td>{v.status ? <span className={`badge ${v.status}`}>{v.status.toLowerCase()}</span> : "—"}</td>
                <td>{ci(v.passAt1)}</td>
                <td>{ci(v.passAtK)}</td>
                <td className="muted">
                  {v.passAt1.c}/{v.passAt1.n} passed
                  {v.pending ? ` · ${v.pending} running` : ""}
                  {v.failed ? ` · ${v.failed} failed` : ""}
                </td>
                <td className="muted">{v.gateReason ?? ""}</td>
                <td>
                  <GuardedButton
                    perm="write"
                    disabled={request.pending}
                    onClick={() => void request.run({ experimentId, version: v.version })}
                  >
                    Re-evaluate
                  </GuardedButton>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
