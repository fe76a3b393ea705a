"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTRPC } from "../../../_lib/trpc";
import { messageOf } from "../../../_lib/errors";
import { Message, type ChatMessage } from "../../_components/Message";
import { TurnAnnotations } from "../../_components/TurnAnnotations";
import { Cheatsheet, useLabelKeys } from "../../_components/useLabelKeys";
import { fmtScore, type RouterOutputs } from "../../_components/format";

type Item = NonNullable<RouterOutputs["review"]["next"]>;
type Vote = 1 | 0 | -1;

const clamp = (v: number | null | undefined): Vote | null =>
  v === null || v === undefined ? null : v > 0 ? 1 : v < 0 ? -1 : 0;

function useCountdown(until: Date | string | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!until) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [until]);
  return until ? Math.max(0, Math.round((new Date(until).getTime() - now) / 1000)) : null;
}

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
  const trpc = useTRPC();
  const qc = useQueryClient();
  const queue = useQuery({ ...trpc.review.queue.queryOptions({ id: queueId }), refetchInterval: 10_000 });
  const history = useQuery(trpc.review.history.queryOptions({ queueId }));
  const nextM = useMutation(trpc.review.next.mutationOptions());
  const openM = useMutation(trpc.review.open.mutationOptions());
  const skipM = useMutation(trpc.review.skip.mutationOptions());
  const submitM = useMutation(trpc.review.submit.mutationOptions());
  const releaseM = useMutation(trpc.review.release.mutationOptions());

  const [item, setItem] = useState<Item | null>(null);
  const [empty, setEmpty] = useState(false);
  const [value, setValue] = useState<Vote | null>(null);
  const [hint, setHint] = useState("");
  const [exclude, setExclude] = useState(false);
  const [help, setHelp] = useState(false);
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const [done, setDone] = useState(0);
  const hintRef = useRef<HTMLTextAreaElement>(null);
  const turn = useQuery({ ...trpc.turns.get.queryOptions({ id: item?.turnId ?? "" }), enabled: !!item });
  const expiresIn = useCountdown(item?.lockExpiresAt ?? null);

  // The form starts from the label training would use now.
  useEffect(() => {
    if (!turn.data || turn.data.id !== item?.turnId) return;
    setValue(clamp(turn.data.training?.value));
    setHint(turn.data.training?.hint ?? "");
    setExclude(false);
  }, [turn.data, item?.turnId]);

  const show = useCallback((next: Item | null) => {
    // Each item starts with nothing focused: a hint box still focused from the last item would swallow the
    // next single-key shortcuts (a, j, k, r) as text.
    if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
    setItem(next);
    setEmpty(next === null);
  }, []);

  const fetchNext = useCallback(async () => {
    try {
      show(await nextM.mutateAsync({ queueId }));
      await qc.invalidateQueries({ queryKey: trpc.review.pathKey() });
    } catch (err) {
      setMsg({ ok: false, text: messageOf(err) });
    }
  }, [nextM, queueId, qc, trpc, show]);

  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void fetchNext();
  }, [fetchNext]);

  // Leaving the page gives the lock back, so a colleague need not wait for it to expire.
  const held = useRef<string | null>(null);
  const release = useRef(releaseM.mutate);
  useEffect(() => {
    held.current = item && item.lockExpiresAt && !item.mine ? item.id : null;
    release.current = releaseM.mutate;
  });
  useEffect(
    () => () => {
      if (held.current) release.current({ itemId: held.current });
    },
    [],
  );

  const readOnly = !item || !!item.mine || !item.lockExpiresAt;

  async function submit(verdict: "ACCEPT" | "FIX" | "REJECT") {
    if (!item || readOnly) return;
    if (verdict === "FIX" && value === null) return setMsg({ ok: false, text: "Pick a label first: 1, 0 or -." });
    try {
      const res = await submitM.mutateAsync({
        itemId: item.id,
        verdict,
        value: value ?? undefined,
        hint: hint.trim() || undefined,
        exclude,
      });
      setMsg({
        ok: true,
        text: `${verdict === "ACCEPT" ? "Accepted" : verdict === "FIX" ? "Fixed & accepted" : "Rejected"} turn #${turn.data?.index ?? ""}: ${res.training?.excluded ? "excluded from training" : `trains as ${res.training?.kind ?? "—"} with reward ${fmtScore(res.training?.reward)}`}`,
      });
      setDone((d) => d + 1);
      await qc.invalidateQueries({ queryKey: trpc.turns.pathKey() });
      await history.refetch();
      await fetchNext();
    } catch (err) {
      setMsg({ ok: false, text: messageOf(err) });
    }
  }

  async function skip() {
    if (!item) return;
    try {
      if (!readOnly) await skipM.mutateAsync({ itemId: item.id });
      await history.refetch();
      await fetchNext();
    } catch (err) {
      setMsg({ ok: false, text: messageOf(err) });
    }
  }

  async function previous() {
    const list = history.data ?? [];
    const at = item ? list.findIndex((h) => h.itemId === item.id) : -1;
    const prev = at === -1 ? list[0] : list[at + 1];
    if (!prev) return setMsg({ ok: false, text: "Nothing earlier in your history." });
    try {
      if (item && !readOnly) await releaseM.mutateAsync({ itemId: item.id });
      show(await openM.mutateAsync({ itemId: prev.itemId }));
    } catch (err) {
      setMsg({ ok: false, text: messageOf(err) });
    }
  }

  useLabelKeys({
    setValue: (v) => !readOnly && setValue(v),
    focusHint: () => hintRef.current?.focus(),
    toggleExclude: () => !readOnly && setExclude((x) => !x),
    submit: () => void submit("FIX"),
    accept: () => void submit("ACCEPT"),
    reject: () => void submit("REJECT"),
    next: () => void skip(),
    previous: () => void previous(),
    help: () => setHelp((h) => !h),
    escape: () => setHelp(false),
  });

  const t = turn.data;
  const q = queue.data;
  return (
    <>
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>{q?.name ?? "Review"}</h1>
        {q && (
          <span className="muted">
            {q.pending} pending · {q.disputed} disputed · {q.done} done · {q.reviewersPerItem} reviewer
            {q.reviewersPerItem > 1 ? "s" : ""} per item
          </span>
        )}
        <span className="spacer" />
        <span className="muted">{done} reviewed this session</span>
        <button onClick={() => setHelp(true)}>
          Shortcuts <kbd>?</kbd>
        </button>
        <Link className="button" href="/review">
          Queues
        </Link>
      </div>
      {msg && (
        <div className={msg.ok ? "notice" : "form-error"} role="status" data-testid="review-status">
          {msg.text}
        </div>
      )}
      {empty && (
        <div className="empty" data-testid="queue-empty">
          Nothing left for you in this queue: every pending turn is done, locked by a colleague, or already seen by you.
          <div style={{ marginTop: 10 }}>
            <button onClick={() => void fetchNext()}>Check again</button>
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
                : `Locked for you · ${expiresIn ?? "?"} s left`}
            </div>
            <div className="choices" role="radiogroup" aria-label="Label">
              {([1, 0, -1] as const).map((v) => (
                <button
                  key={v}
                  type="button"
                  role="radio"
                  aria-checked={value === v}
                  disabled={readOnly}
                  className={value === v ? "on" : undefined}
                  onClick={() => setValue(v)}
                >
                  {fmtScore(v)} <kbd>{v === 1 ? "1" : v === 0 ? "0" : "-"}</kbd>
                </button>
              ))}
            </div>
            <label className="field">
              <span>
                Hint <kbd>h</kbd>
              </span>
              <textarea
                ref={hintRef}
                aria-label="Hint"
                rows={4}
                value={hint}
                disabled={readOnly}
                onChange={(e) => setHint(e.target.value)}
                placeholder="What the assistant should have done"
              />
            </label>
            <label style={{ display: "flex", gap: 6, alignItems: "center", margin: "8px 0" }}>
              <input
                type="checkbox"
                aria-label="Exclude from training"
                checked={exclude}
                disabled={readOnly}
                onChange={(e) => setExclude(e.target.checked)}
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
                    disabled={readOnly || submitM.isPending}
                    onClick={() => void submit(v.verdict)}
                  >
                    {v.label} <kbd>{v.key}</kbd>
                  </button>
                  <div id={`verdict-${v.verdict}`} className="muted verdict-help">
                    {v.help}
                  </div>
                </div>
              ))}
            </div>
            <div className="toolbar" style={{ marginTop: 10, marginBottom: 0 }}>
              <button onClick={() => void previous()}>
                <kbd>k</kbd> Previous
              </button>
              <button onClick={() => void skip()}>
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
      {help && <Cheatsheet onClose={() => setHelp(false)} />}
    </>
  );
}
