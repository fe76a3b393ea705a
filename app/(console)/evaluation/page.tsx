"use client";
// Evaluation: per experiment, each policy version's held-out eval score (mean with its 95% CI, on the current
// eval set version) next to the training reward the same version earned on live traffic; candidates the
// promotion gate holds back, with the reason; a side-by-side comparison of two versions on the same prompts;
// judge–human agreement; and the eval sets (JSONL upload/download, persona set). Live: refreshed every 5 s.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Suspense, useState } from "react";
import { z } from "zod";
import { EvalSetListInput } from "../../../server/evaluation/schemas";
import { useTRPC } from "../../_lib/trpc";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { useAction } from "../../_ui/useAction";
import { useSearchState } from "../../_ui/useSearchState";
import { ExperimentSelect } from "../_components/ExperimentSelect";
import { GuardedButton } from "../_components/Permission";
import { EvalChart } from "./EvalChart";
import { Comparison } from "./Comparison";
import { Agreement } from "./Agreement";
import { EvalSets } from "./EvalSets";
import { TaskPassRates } from "./TaskPassRates";

export default function EvaluationPage() {
  return (
    <Suspense fallback={<div className="muted">Loading…</div>}>
      <Evaluation />
    </Suspense>
  );
}

/** The chosen experiment, in the URL (the compared versions stay local: see below). */
const EvaluationSearch = z.object({ experimentId: EvalSetListInput.shape.experimentId.optional() });

const pct = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toFixed(2));
/** An evaluation's mean, else its status (queued, running, failed), else a dash. */
const score = (ev: { mean: number | null; status: string } | null) =>
  ev ? (ev.mean !== null ? pct(ev.mean) : ev.status.toLowerCase()) : "—";

function Evaluation() {
  const trpc = useTRPC();
  const [search, set] = useSearchState(EvaluationSearch);
  const experimentId = search.experimentId ?? "";
  const overview = useQuery({
    ...trpc.evaluation.overview.queryOptions({ experimentId }),
    enabled: !!experimentId,
    refetchInterval: 5000,
  });
  const request = useAction(trpc.evaluation.request.mutationOptions(), {
    invalidate: [trpc.evaluation.overview.queryKey()],
  });
  const d = overview.data;
  // the gate's score gets a column when it is not the reported one: its own set, or its own draws of seeds
  const gateColumn = Boolean(d?.gateSet || d?.gate.confirm);
  const evaluated = d?.versions.filter((v) => v.evaluation?.mean !== null && v.evaluation?.mean !== undefined) ?? [];
  // The two compared versions are local state (two quick picks must not race through the router); default:
  // the oldest and the newest evaluated version, the before/after of the run.
  const [pick, setPick] = useState<{ a?: string; b?: string }>({});
  const a = pick.a ?? (evaluated.length >= 2 ? String(evaluated[0]!.version) : "");
  const b = pick.b ?? (evaluated.length >= 2 ? String(evaluated.at(-1)!.version) : "");

  return (
    <>
      <h1>Evaluation</h1>
      <p className="muted">
        Is it learning? Every evaluated policy version answers the same held-out prompts (never seen as training
        traffic) with fixed sampling settings and seeds; a grader scores each reply from 0 to 1. The training reward is
        what the judge gave the turns that version served live. A gated experiment serves a new version only once its
        eval score is at least the served one&apos;s minus the tolerance — on the gate set when one is named, so the
        eval score here is not the one each served version was picked on; with confirmation on, the winner and the
        served version are compared again on a fresh draw of seeds before it is served.
      </p>
      <div className="filters">
        <ExperimentSelect
          value={experimentId}
          onChange={(id) => (setPick({}), set({ experimentId: id }))}
          allowAll={false}
        />
      </div>
      {overview.error && <div className="form-error">{overview.error.message}</div>}
      <ErrorBanner error={request.error} />
      {!experimentId && <div className="empty">Choose an experiment.</div>}
      {d && (
        <>
          <div className="card" data-testid="eval-summary">
            <dl className="kv">
              <dt>Served version</dt>
              <dd data-testid="eval-served">{d.servedVersion}</dd>
              <dt>Promotion</dt>
              <dd>
                {d.promotion === "gated"
                  ? `gated: eval ≥ served − ${d.gate.tolerance}${d.gate.floor !== undefined ? `, and ≥ ${d.gate.floor}` : ""}${d.gate.confirm ? "; a winner and the served version compared again on fresh seeds before a promotion" : ""}`
                  : "always (every new version is served at once)"}
              </dd>
              <dt>Eval set</dt>
              <dd>
                {d.set ? `${d.set.name} v${d.set.version} (${d.set.items} prompts)` : "none yet — create one below"}
              </dd>
              {d.gateSet && (
                <>
                  <dt>Gate set</dt>
                  <dd data-testid="eval-gate-set">
                    {d.gateSet.version !== null
                      ? `${d.gateSet.name} v${d.gateSet.version} (${d.gateSet.items} prompts): the gate reads this set, not the eval set`
                      : `${d.gateSet.name} — not created yet: nothing is promoted until it exists`}
                  </dd>
                </>
              )}
              <dt>Evaluation</dt>
              <dd>
                {d.evaluationEnabled ? (
                  "on"
                ) : (
                  <>
                    off (turn it on in the <Link href={`/experiments/${d.experimentId}/edit`}>experiment config</Link>)
                  </>
                )}
              </dd>
            </dl>
          </div>
          <TaskPassRates experimentId={experimentId} />
          <div className="card">
            <div className="muted" style={{ fontSize: 12, marginBottom: 4 }}>
              Eval score per version (dots with 95% CI, 0–1, left) and training reward (line, −1…+1, right)
            </div>
            {d.versions.some((v) => v.evaluation?.mean != null || v.trainingReward !== null) ? (
              <EvalChart versions={d.versions} />
            ) : (
              <div className="empty">No evaluated or judged versions yet.</div>
            )}
          </div>
          {d.candidates.length > 0 && (
            <div className="card" data-testid="eval-candidates">
              <h2 style={{ marginTop: 0 }}>Held back by the gate</h2>
              <table className="list">
                <thead>
                  <tr>
                    <th>Version</th>
                    <th>{gateColumn ? "Gate score" : "Eval"}</th>
                    <th>Reason</th>
                  </tr>
                </thead>
                <tbody>
                  {d.candidates.map((c) => (
                    <tr key={c.version} data-testid={`candidate-${c.version}`}>
                      <td>
                        v{c.version} <span className="badge PENDING">candidate</span>
                      </td>
                      <td>{pct(c.evaluation?.mean)}</td>
                      <td>{c.reason ?? "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <div className="card">
            <h2 style={{ marginTop: 0 }}>Versions</h2>
            <table className="list" data-testid="eval-versions">
              <thead>
                <tr>
                  <th>Version</th>
                  <th>Status</th>
                  <th>Eval (95% CI)</th>
                  {gateColumn && <th title="what the gate read: its own set, its latest draw of seeds">Gate score</th>}
                  <th>Training reward</th>
                  <th>Cost</th>
                  <th>Grader</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {[...d.versions].reverse().map((v) => (
                  <tr key={v.version}>
                    <td>
                      v{v.version}
                      {v.version === 0 ? " (base)" : ""}
                    </td>
                    <td>
                      <span className={`badge ${v.status}`}>{v.status.toLowerCase()}</span>
                    </td>
                    <td>
                      {v.evaluation
                        ? v.evaluation.mean !== null
                          ? `${pct(v.evaluation.mean)} [${pct(v.evaluation.ciLow)}, ${pct(v.evaluation.ciHigh)}]`
                          : v.evaluation.status.toLowerCase()
                        : "—"}
                      {v.evaluation?.status === "PARTIAL" ? " (budget hit)" : ""}
                      {v.evaluation?.error ? <span className="field-error"> {v.evaluation.error}</span> : null}
                    </td>
                    {gateColumn && (
                      <td data-testid={`gate-score-${v.version}`}>
                        {score(v.gateEvaluation)}
                        {v.gateEvaluation?.draw ? ` (draw ${v.gateEvaluation.draw})` : ""}
                      </td>
                    )}
                    <td>
                      {v.trainingReward !== null
                        ? `${v.trainingReward >= 0 ? "+" : ""}${v.trainingReward.toFixed(2)} (${v.rewardTurns} turns)`
                        : "—"}
                    </td>
                    <td className="muted">
                      {v.evaluation
                        ? `${(v.evaluation.durationMs / 1000).toFixed(1)} s · ${v.evaluation.replyTokens} tokens · ${v.evaluation.replies} replies`
                        : ""}
                    </td>
                    <td className="muted">
                      {v.evaluation ? `${v.evaluation.grader} ${v.evaluation.graderVersion}` : ""}
                    </td>
                    <td>
                      <GuardedButton
                        perm="write"
                        disabled={!d.set || request.pending}
                        onClick={() => void request.run({ experimentId, version: v.version })}
                      >
                        {v.evaluation ? "Re-evaluate" : "Evaluate"}
                      </GuardedButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="card">
            <div className="toolbar">
              <h2 style={{ margin: 0 }}>Compare two versions</h2>
              <span className="spacer" />
              {(["a", "b"] as const).map((k) => (
                <label key={k} className="field inline">
                  <span>{k === "a" ? "Before" : "After"}</span>
                  <select
                    aria-label={k === "a" ? "Before version" : "After version"}
                    value={k === "a" ? a : b}
                    onChange={(ev) => setPick((p) => ({ ...p, [k]: ev.target.value }))}
                  >
                    <option value="">—</option>
                    {evaluated.map((v) => (
                      <option key={v.version} value={v.version}>
                        v{v.version}
                      </option>
                    ))}
                  </select>
                </label>
              ))}
            </div>
            {a && b && a !== b ? (
              <Comparison experimentId={experimentId} a={Number(a)} b={Number(b)} />
            ) : (
              <div className="empty">Pick two evaluated versions.</div>
            )}
          </div>
          <Agreement experimentId={experimentId} />
          <EvalSets experimentId={experimentId} />
        </>
      )}
    </>
  );
}
