"use client";
// "Is it learning?" on the experiment page: the verdict a user reads in a second, the sentence with its numbers,
// the rule behind it, the first-reply reward chart, and per version the held-out pass rate and hint acceptance.
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../../_lib/trpc";
import { RewardChart } from "../../simulation/RewardChart";

const TONE: Record<string, string> = {
  learning: "RUNNING",
  "fitting the judge": "FAILED",
  "getting worse": "FAILED",
  flat: "PAUSED",
  "too early": "PENDING",
};

const fmt = (x: number | null, digits = 2) => (x === null || Number.isNaN(x) ? "–" : x.toFixed(digits));

export function LearningVerdict({ experimentId }: { experimentId: string }) {
  const trpc = useTRPC();
  const report = useQuery({ ...trpc.evaluation.learning.queryOptions({ experimentId }), refetchInterval: 10_000 });
  if (report.error) return <div className="form-error">{report.error.message}</div>;
  if (!report.data) return null;
  const r = report.data;
  const base = r.versions.find((v) => v.version === 0) ?? null;
  const trained = r.versions.filter((v) => v.version > 0);
  const stable = r.stableEffect;
  return (
    <section className="card" data-testid="learning">
      <div className="toolbar">
        <h2 style={{ margin: 0 }}>Is it learning?</h2>
        <span className={`badge ${TONE[r.verdict]}`} data-testid="learning-verdict">
          {r.verdict}
        </span>
      </div>
      <p data-testid="learning-reason">{r.reason}.</p>
      <details>
        <summary className="muted">The rule</summary>
        <p className="muted" data-testid="learning-rule">
          {r.rule}
        </p>
      </details>
      {trained.length > 0 && <RewardChart points={trained} base={base} />}
      <p className="muted" data-testid="learning-stable">
        Sessions until a stable effect (three sessions in a row whose first reply met the preference):{" "}
        {stable.sessionsUntilStable ?? `not yet, after ${stable.sessions} judged sessions`}
        {stable.byUser.length > 1 &&
          ` · ${stable.byUser.map((u) => `${u.user}: ${u.sessionsUntilStable ?? "not yet"}`).join(" · ")}`}
      </p>
      {r.versions.length > 0 && (
        <table className="list" data-testid="learning-versions">
          <thead>
            <tr>
              <th>{r.versionsOf === "adapter" ? "adapter version (every user's)" : "version"}</th>
              <th>first replies (judged)</th>
              <th>every reply (judged)</th>
              <th>held-out pass rate</th>
              <th>hint acceptance</th>
            </tr>
          </thead>
          <tbody>
            {r.versions
              .slice(-10)
              .reverse()
              .map((v) => (
                <tr key={v.version}>
                  <td>{v.version === 0 ? "0 (base)" : v.version}</td>
                  <td>
                    {fmt(v.firstReward)} <span className="muted">({v.firstTurns})</span>
                  </td>
                  <td>
                    {fmt(v.reward)} <span className="muted">({v.turns})</span>
                  </td>
                  <td>{fmt(v.heldOut)}</td>
                  <td>
                    {fmt(v.hintAcceptance)} {v.hinted > 0 && <span className="muted">({v.hinted})</span>}
                  </td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
