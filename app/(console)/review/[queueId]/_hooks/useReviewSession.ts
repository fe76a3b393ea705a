"use client";
// One reviewer's pass through a review queue: the claimed item, the label form, the session's notices, and the
// actions (next, skip, previous, submit) with their lock handling. The page only renders what this returns.
import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { useTRPC } from "../../../../_lib/trpc";
import { useAction } from "../../../../_ui/useAction";
import type { Vote } from "../../../../_ui/LabelChoice";
import { fmtScore, type RouterOutputs } from "../../../_components/format";

export type Item = NonNullable<RouterOutputs["review"]["next"]>;
export type Verdict = "ACCEPT" | "FIX" | "REJECT";

const clamp = (v: number | null | undefined): Vote | null =>
  v === null || v === undefined ? null : v > 0 ? 1 : v < 0 ? -1 : 0;

export interface ReviewState {
  item: Item | null;
  /** The queue had nothing for this reviewer at the last ask. */
  empty: boolean;
  value: Vote | null;
  hint: string;
  exclude: boolean;
  help: boolean;
  /** What the last submission did to training. */
  notice: string | null;
  /** Submissions in this page visit. */
  done: number;
}

export type ReviewEvent =
  | { type: "show"; item: Item | null }
  | { type: "turnLoaded"; value: number | null | undefined; hint: string | null | undefined }
  | { type: "setValue"; value: Vote }
  | { type: "setHint"; hint: string }
  | { type: "setExclude"; exclude: boolean }
  | { type: "toggleExclude" }
  | { type: "help"; open: boolean | "toggle" }
  | { type: "submitted"; notice: string };

export const initialReview: ReviewState = {
  item: null,
  empty: false,
  value: null,
  hint: "",
  exclude: false,
  help: false,
  notice: null,
  done: 0,
};

export function reviewReducer(s: ReviewState, e: ReviewEvent): ReviewState {
  switch (e.type) {
    case "show":
      return { ...s, item: e.item, empty: e.item === null };
    case "turnLoaded":
      // The form starts from the label training would use now.
      return { ...s, value: clamp(e.value), hint: e.hint ?? "", exclude: false };
    case "setValue":
      return { ...s, value: e.value };
    case "setHint":
      return { ...s, hint: e.hint };
    case "setExclude":
      return { ...s, exclude: e.exclude };
    case "toggleExclude":
      return { ...s, exclude: !s.exclude };
    case "help":
      return { ...s, help: e.open === "toggle" ? !s.help : e.open };
    case "submitted":
      return { ...s, notice: e.notice, done: s.done + 1 };
  }
}

function useCountdown(until: Date | string | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!until) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [until]);
  return until ? Math.max(0, Math.round((new Date(until).getTime() - now) / 1000)) : null;
}

const VERDICT_DONE: Record<Verdict, string> = { ACCEPT: "Accepted", FIX: "Fixed & accepted", REJECT: "Rejected" };

export function useReviewSession(queueId: string) {
  const trpc = useTRPC();
  const queue = useQuery({ ...trpc.review.queue.queryOptions({ id: queueId }), refetchInterval: 10_000 });
  const history = useQuery(trpc.review.history.queryOptions({ queueId }));
  const nextA = useAction(trpc.review.next.mutationOptions(), { invalidate: [trpc.review.pathKey()] });
  const openA = useAction(trpc.review.open.mutationOptions());
  const skipA = useAction(trpc.review.skip.mutationOptions());
  const submitA = useAction(trpc.review.submit.mutationOptions(), { invalidate: [trpc.turns.pathKey()] });
  const releaseA = useAction(trpc.review.release.mutationOptions());
  const actions = [nextA, openA, skipA, submitA, releaseA];
  const error = actions.find((a) => a.error)?.error ?? null;
  const clearErrors = () => actions.forEach((a) => a.clear());

  const [s, dispatch] = useReducer(reviewReducer, initialReview);
  const { item } = s;
  const turn = useQuery({ ...trpc.turns.get.queryOptions({ id: item?.turnId ?? "" }), enabled: !!item });
  const expiresIn = useCountdown(item?.lockExpiresAt ?? null);

  useEffect(() => {
    if (!turn.data || turn.data.id !== item?.turnId) return;
    dispatch({ type: "turnLoaded", value: turn.data.training?.value, hint: turn.data.training?.hint });
  }, [turn.data, item?.turnId]);

  const show = useCallback((next: Item | null) => {
    // Each item starts with nothing focused: a hint box still focused from the last item would swallow the
    // next single-key shortcuts (a, j, k, r) as text.
    if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
    dispatch({ type: "show", item: next });
  }, []);

  const runNext = nextA.run;
  const fetchNext = useCallback(async () => {
    const r = await runNext({ queueId });
    if (r.ok) show(r.data);
  }, [runNext, queueId, show]);

  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void fetchNext();
  }, [fetchNext]);

  // Leaving the page gives the lock back, so a colleague need not wait for it to expire.
  const held = useRef<string | null>(null);
  const release = useRef(releaseA.mutate);
  useEffect(() => {
    held.current = item && item.lockExpiresAt && !item.mine ? item.id : null;
    release.current = releaseA.mutate;
  });
  useEffect(
    () => () => {
      if (held.current) release.current({ itemId: held.current });
    },
    [],
  );

  const readOnly = !item || !!item.mine || !item.lockExpiresAt;

  async function submit(verdict: Verdict) {
    if (!item || readOnly) return;
    clearErrors();
    if (verdict === "FIX" && s.value === null) return submitA.fail("Pick a label first: 1, 0 or -.");
    const r = await submitA.run({
      itemId: item.id,
      verdict,
      value: s.value ?? undefined,
      hint: s.hint.trim() || undefined,
      exclude: s.exclude,
    });
    if (!r.ok) return;
    const t = r.data.training;
    dispatch({
      type: "submitted",
      notice: `${VERDICT_DONE[verdict]} turn #${turn.data?.index ?? ""}: ${t?.excluded ? "excluded from training" : `trains as ${t?.kind ?? "—"} with reward ${fmtScore(t?.reward)}`}`,
    });
    await history.refetch();
    await fetchNext();
  }

  async function skip() {
    if (!item) return;
    clearErrors();
    if (!readOnly && !(await skipA.run({ itemId: item.id })).ok) return;
    await history.refetch();
    await fetchNext();
  }

  async function previous() {
    clearErrors();
    const list = history.data ?? [];
    const at = item ? list.findIndex((h) => h.itemId === item.id) : -1;
    const prev = at === -1 ? list[0] : list[at + 1];
    if (!prev) return openA.fail("Nothing earlier in your history.");
    if (item && !readOnly && !(await releaseA.run({ itemId: item.id })).ok) return;
    const r = await openA.run({ itemId: prev.itemId });
    if (r.ok) show(r.data);
  }

  return {
    ...s,
    queue: queue.data,
    turn: turn.data,
    expiresIn,
    readOnly,
    error,
    submitting: submitA.pending,
    dispatch,
    fetchNext,
    submit,
    skip,
    previous,
  };
}
