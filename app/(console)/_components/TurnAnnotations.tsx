"use client";
import Link from "next/link";
import { Heatmap } from "./Heatmap";
import { fmtScore, fmtTime, scoreClass, trainingText, type AnnotatedTurn } from "./format";

/** "3 eval votes · 3 hint votes": the two kinds answer different questions, so they are counted apart. */
function voteSummary(votes: readonly { kind: string }[]): string {
  const n = (kind: string) => votes.filter((v) => v.kind === kind).length;
  const part = (count: number, kind: string) => `${count} ${kind} vote${count === 1 ? "" : "s"}`;
  return [n("eval") && part(n("eval"), "eval"), n("hint") && part(n("hint"), "hint")].filter(Boolean).join(" · ");
}

/** Everything known about one assistant turn: version and staleness, votes, score, hint, training use, labels, OPD gap. */
export function TurnAnnotations({ turn, link = true }: { turn: AnnotatedTurn; link?: boolean }) {
  const j = turn.judgment;
  const latestHuman = turn.labels[0];
  return (
    <div className="annot" data-testid={`annot-${turn.id}`}>
      <div className="row">
        {link && <Link href={`/trajectories/${turn.id}`}>turn #{turn.index}</Link>}
        <span title="policy version that served this turn">policy v{turn.policyVersion}</span>
        {turn.staleness !== null && (
          <span
            className={turn.staleness > 0 ? "muted" : undefined}
            title={`serving v${turn.currentPolicyVersion} now`}
          >
            {turn.staleness === 0 ? "current" : `${turn.staleness} version${turn.staleness === 1 ? "" : "s"} behind`}
          </span>
        )}
        {j ? (
          <>
            <span>
              judge{" "}
              <span className={`score ${scoreClass(j.score)}`} data-testid="judge-score">
                {fmtScore(j.score)}
              </span>
            </span>
            <span
              className="muted"
              data-testid="vote-agreement"
              title="eval votes (the judge's −1/0/+1 scores) that equal the final score; hint votes are counted apart"
            >
              {j.agreement.agree}/{j.agreement.valid} eval votes agree
            </span>
            {j.agreement.valid > j.agreement.agree && <span className="badge disputed">split votes</span>}
            <span className="muted">
              {j.judgeKind === "heuristic" ? "heuristic judge" : `${j.judgeKind} ${j.model}`}
            </span>
          </>
        ) : (
          <span className="muted">not judged</span>
        )}
        {latestHuman && (
          <span className={`badge ${latestHuman.source === "REVIEWER" ? "reviewer" : latestHuman.source}`}>
            {latestHuman.source === "REVIEWER" ? "relabeled" : "user feedback"} {fmtScore(latestHuman.value)}
          </span>
        )}
      </div>
      <div className="row" style={{ marginTop: 4 }}>
        <span>
          Training: <strong data-testid="training-use">{trainingText(turn.training)}</strong>
        </span>
        {turn.samples.map((s) => (
          <span key={s.id} className="muted">
            {s.kind} sample r={s.reward}{" "}
            {s.excluded
              ? `(excluded: ${s.excludeReason})`
              : s.step
                ? `trained at step ${s.step.step}`
                : "waiting for a step"}
            {s.staleness !== null ? ` · staleness ${s.staleness}` : ""}
          </span>
        ))}
      </div>
      {j?.hint && (
        <div className="hint">
          <strong>Hint</strong>
          {j.hintAccepted ? "" : " (not accepted)"}: {j.hint}
        </div>
      )}
      {turn.training?.source === "REVIEWER" && turn.training.hint && turn.training.hint !== j?.hint && (
        <div className="hint">
          <strong>Reviewer hint</strong>: {turn.training.hint}
        </div>
      )}
      {j && j.votes.length > 0 && (
        <details>
          <summary data-testid="votes-summary">{voteSummary(j.votes)} (reasoning)</summary>
          {j.votes.map((v) => (
            <div key={v.id} className="vote" data-kind={v.kind}>
              <div className="row">
                <span className="mono">
                  {v.kind} vote #{v.index}
                </span>
                {v.kind === "eval" ? (
                  <span className={`score ${scoreClass(v.value)}`} title="this vote's score of the turn">
                    {fmtScore(v.value)}
                  </span>
                ) : (
                  // A hint vote's 1 means "the next state holds a hint", not that the turn was good.
                  <span
                    className="badge"
                    data-testid="hint-vote"
                    title="hint vote: 1 = the next state reveals a hint for this turn, −1 = it does not; it does not score the turn"
                  >
                    {v.value === 1 ? "hint found" : v.value === -1 ? "no hint" : "unparsable"}
                  </span>
                )}
                {v.latencyMs !== null && <span className="muted">{v.latencyMs} ms</span>}
                {v.error && <span className="field-error">{v.error}</span>}
              </div>
              {v.hint && <div className="muted">hint: {v.hint}</div>}
              {v.raw && <pre>{v.raw}</pre>}
            </div>
          ))}
        </details>
      )}
      {turn.labels.length > 0 && (
        <details>
          <summary>Label history ({turn.labels.length})</summary>
          <table className="list">
            <tbody>
              {turn.labels.map((l) => (
                <tr key={l.id}>
                  <td>{l.source.toLowerCase()}</td>
                  <td>
                    <span className={`score ${scoreClass(l.value)}`}>{fmtScore(l.value)}</span>
                    {l.exclude ? " excluded" : ""}
                  </td>
                  <td className="muted">{l.user?.email ?? (l.apiKey ? `key ${l.apiKey.prefix}` : "")}</td>
                  <td className="muted">{l.hint ?? l.comment ?? ""}</td>
                  <td className="muted">{fmtTime(l.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
      {turn.opd && (
        <details open={!link}>
          <summary>OPD teacher − policy log-prob gap</summary>
          <Heatmap opd={turn.opd} />
        </details>
      )}
      {turn.olderJudgments.length > 0 && (
        <div className="muted" style={{ marginTop: 4 }}>
          {turn.olderJudgments.length} older judgment(s) under other judge versions
        </div>
      )}
    </div>
  );
}
