"use client";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useRef } from "react";
import { ErrorBanner } from "../../../_ui/ErrorBanner";
import { LabelChoice } from "../../../_ui/LabelChoice";
import { Spacer, Toolbar } from "../../../_ui/Toolbar";
import { Message, type ChatMessage } from "../../_components/Message";
import { TurnAnnotations } from "../../_components/TurnAnnotations";
import { Cheatsheet, useLabelKeys } from "../../_components/useLabelKeys";
import { fmtScore } from "../../_components/format";
import { useReviewSession } from "./_hooks/useReviewSession";

/** The three verdicts, each with what it does to training, shown under its button (not only in the ? sheet). */
const VERDICTS = [
  {
    verdict: "ACCEPT",
    label: "Accept",
    key: "a",
    className: undefined,
    help: "The label training uses now (the judge's, or the user's feedback) is right: keep it, marked as reviewed.",
  },
  {
    verdict: "FIX",
    label: "Fix & Accept",
    key: "Ctrl+Enter",
    className: "primary",
    help: "Save the label, hint and exclude choice above as yours; training uses them instead.",
  },
  {
    verdict: "REJECT",
    label: "Reject",
    key: "r",
    className: "danger",
    help: "This turn is not fit to learn from: exclude it from training.",
  },
] as const;

export default function ReviewQueuePage() {
  const { queueId } = useParams<{ queueId: string }>();
  const r = useReviewSession(queueId);
  const { item, readOnly, dispatch } = r;
  const hintRef = useRef<HTMLTextAreaElement>(null);

  useLabelKeys({
    setValue: (v) => !readOnly && dispatch({ type: "setValue", value: v }),
    focusHint: () => hintRef.current?.focus(),
    toggleExclude: () => !readOnly && dispatch({ type: "toggleExclude" }),
    submit: () => void r.submit("FIX"),
    accept: () => void r.submit("ACCEPT"),
    reject: () => void r.submit("REJECT"),
    next: () => void r.skip(),
    previous: () => void r.previous(),
    help: () => dispatch({ type: "help", open: "toggle" }),
    escape: () => dispatch({ type: "help", open: false }),
  });

  const t = r.turn;
  const q = r.queue;
  return (
    <>
      <Toolbar title={q?.name ?? "Review"}>
        {q && (
          <span className="muted">
            {q.pending} pending · {q.disputed} disputed · {q.done} done · {q.reviewersPerItem} reviewer
            {q.reviewersPerItem > 1 ? "s" : ""} per item
          </span>
        )}
        <Spacer />
        <span className="muted">{r.done} reviewed this session</span>
        <button onClick={() => dispatch({ type: "help", open: true })}>
          Shortcuts <kbd>?</kbd>
        </button>
        <Link className="button" href="/review">
          Queues
        </Link>
      </Toolbar>
      {r.notice && (
        <div className="notice" role="status" data-testid="review-status">
          {r.notice}
        </div>
      )}
      <ErrorBanner error={r.error} testId="review-error" />
      {r.empty && (
        <div className="empty" data-testid="queue-empty">
          Nothing left for you in this queue: every pending turn is done, locked by a colleague, or already seen by you.
          <div style={{ marginTop: 10 }}>
            <button onClick={() => void r.fetchNext()}>Check again</button>
          </div>
        </div>
      )}
      {item && (
        <div className="review-grid" data-testid="review-item" data-turn-id={item.turnId}>
          <div>
            {item.disputed && (
              <div className="notice">
                <span className="badge disputed">disputed</span>{" "}
                {item.disputeReason === "split_votes"
                  ? "The judge's votes are split."
                  : "The user's feedback disagrees with the judge."}
              </div>
            )}
            {!t && <div className="muted">Loading the turn…</div>}
            {t && (
              <div className="conv">
                {(t.messages as ChatMessage[]).slice(-6).map((m, i) => (
                  <Message key={i} m={m} />
                ))}
                <Message
                  m={{
                    role: "assistant",
                    content: t.content,
                    tool_calls: t.toolCalls as ChatMessage["tool_calls"],
                    reasoning_content: t.reasoning ?? undefined,
                  }}
                  extra={
                    <span>
                      response under review · <Link href={`/trajectories/${t.id}`}>full turn</Link>
                    </span>
                  }
                />
                {t.nextState !== null && t.nextState !== undefined && (
                  <Message
                    m={{
                      ...(typeof t.nextState === "object"
                        ? (t.nextState as ChatMessage)
                        : { content: String(t.nextState) }),
                      role: t.nextStateRole ?? "user",
                    }}
                    extra={<span>next state</span>}
                  />
                )}
                <TurnAnnotations turn={t} link={false} />
              </div>
            )}
          </div>
          <div className="review-panel card">
            <div className="muted" style={{ fontSize: 12 }}>
              {readOnly
                ? item.mine
                  ? "You reviewed this item."
                  : "Read only: no room left on this item."
                : `Locked for you · ${r.expiresIn ?? "?"} s left`}
            </div>
            <LabelChoice
              value={r.value}
              onChange={(v) => dispatch({ type: "setValue", value: v })}
              disabled={readOnly}
            />
            <label className="field">
              <span>
                Hint <kbd>h</kbd>
              </span>
              <textarea
                ref={hintRef}
                aria-label="Hint"
                rows={4}
                value={r.hint}
                disabled={readOnly}
                onChange={(e) => dispatch({ type: "setHint", hint: e.target.value })}
                placeholder="What the assistant should have done"
              />
            </label>
            <label className="check-row">
              <input
                type="checkbox"
                aria-label="Exclude from training"
                checked={r.exclude}
                disabled={readOnly}
                onChange={(e) => dispatch({ type: "setExclude", exclude: e.target.checked })}
              />{" "}
              Exclude from training <kbd>x</kbd>
            </label>
            <div className="verdicts" data-testid="verdicts">
              {VERDICTS.map((v) => (
                <div key={v.verdict}>
                  <button
                    className={v.className}
                    title={v.help}
                    aria-describedby={`verdict-${v.verdict}`}
                    disabled={readOnly || r.submitting}
                    onClick={() => void r.submit(v.verdict)}
                  >
                    {v.label} <kbd>{v.key}</kbd>
                  </button>
                  <div id={`verdict-${v.verdict}`} className="muted verdict-help">
                    {v.help}
                  </div>
                </div>
              ))}
            </div>
            <div className="toolbar tight">
              <button onClick={() => void r.previous()}>
                <kbd>k</kbd> Previous
              </button>
              <button onClick={() => void r.skip()}>
                Skip <kbd>j</kbd>
              </button>
            </div>
            {item.submissions.length > 0 && (
              <div style={{ marginTop: 10 }} data-testid="agreement">
                <h3>
                  Reviews {item.agreement ? `· ${item.agreement.agreeing}/${item.agreement.reviewers} agree` : ""}
                </h3>
                {item.submissions.map((s) => (
                  <div key={s.reviewer} className="muted">
                    {s.reviewer}: {s.verdict.toLowerCase()} {s.exclude ? "excluded" : fmtScore(s.value)}
                  </div>
                ))}
              </div>
            )}
            {!item.submissions.length && item.submittedCount > 0 && (
              <div className="muted" style={{ marginTop: 8 }}>
                {item.submittedCount} review(s) in; shown after yours.
              </div>
            )}
          </div>
        </div>
      )}
      {r.help && <Cheatsheet onClose={() => dispatch({ type: "help", open: false })} />}
    </>
  );
}
