"use client";
import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Suspense, useCallback, useEffect, useMemo, useState } from "react";
import { useTRPC } from "../../_lib/trpc";
import { ExperimentSelect } from "../_components/ExperimentSelect";
import { VirtualList } from "../_components/VirtualList";
import { ImportRecords } from "../_components/ImportRecords";
import { fmtScore, scoreClass } from "../_components/format";
import { RowLink } from "../_components/RowLink";
import { SearchHit } from "../_components/SearchHit";
import { AddToQueue } from "./AddToQueue";
import { SavedViews } from "../_components/SavedViews";

const KEYS = [
  "experimentId",
  "runId",
  "sessionId",
  "turnType",
  "status",
  "score",
  "agreement",
  "relabeled",
  "disputed",
  "from",
  "to",
  "policyVersion",
  "q",
] as const;
type Key = (typeof KEYS)[number];

/** Filters live in the URL, so a filtered view can be shared and survives a reload. */
function useUrlFilters() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const values = Object.fromEntries(KEYS.map((k) => [k, params.get(k) ?? ""])) as Record<Key, string>;
  const set = useCallback(
    (patch: Partial<Record<Key, string>>) => {
      const next = new URLSearchParams(params.toString());
      for (const [k, v] of Object.entries(patch)) {
        if (v) next.set(k, v);
        else next.delete(k);
      }
      router.replace(`${pathname}?${next.toString()}`);
    },
    [params, router, pathname],
  );
  return [values, set] as const;
}

/** A text input that commits after a pause in typing. */
function DebouncedInput({
  label,
  value,
  onCommit,
  placeholder,
}: {
  label: string;
  value: string;
  onCommit: (v: string) => void;
  placeholder?: string;
}) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text === value) return;
    const t = setTimeout(() => onCommit(text.trim()), 350);
    return () => clearTimeout(t);
  }, [text, value, onCommit]);
  return (
    <label className="field">
      <span>{label}</span>
      <input aria-label={label} value={text} placeholder={placeholder} onChange={(e) => setText(e.target.value)} />
    </label>
  );
}

function Select({
  label,
  value,
  onChange,
  options,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  options: [string, string][];
}) {
  return (
    <label className="field">
      <span>{label}</span>
      <select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
        {options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    </label>
  );
}

const toIso = (local: string) => (local ? new Date(local).toISOString() : "");
const toLocal = (iso: string) =>
  iso ? new Date(new Date(iso).getTime() - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : "";

function Browser() {
  const trpc = useTRPC();
  const router = useRouter();
  const [f, set] = useUrlFilters();
  // The filters as a canonical query string (a saved view's identity).
  const query = new URLSearchParams(KEYS.filter((k) => f[k]).map((k) => [k, f[k]])).toString();
  const runs = useQuery({
    ...trpc.runs.list.queryOptions({ experimentId: f.experimentId, limit: 50 }),
    enabled: !!f.experimentId,
  });
  const me = useQuery(trpc.me.queryOptions());
  const canWrite = me.data?.permissions.includes("write") ?? false;
  // Ticking rows (to add them to a review queue) needs one experiment: a queue holds that experiment's turns.
  const canPick = !!f.experimentId && (me.data?.permissions.includes("review") ?? false);
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => setPicked(new Set()), [f.experimentId]);
  const togglePick = (id: string) =>
    setPicked((p) => {
      const next = new Set(p);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const input = useMemo(
    () => ({
      experimentId: f.experimentId || undefined,
      runId: f.runId || undefined,
      sessionId: f.sessionId || undefined,
      turnType: (f.turnType || undefined) as "MAIN" | "SIDE" | undefined,
      status: (f.status || undefined) as "OK" | "FAILED" | undefined,
      score: (f.score || undefined) as "1" | "0" | "-1" | "unjudged" | undefined,
      agreement: (f.agreement || undefined) as "unanimous" | "split" | undefined,
      relabeled: f.relabeled ? f.relabeled === "true" : undefined,
      disputed: f.disputed ? f.disputed === "true" : undefined,
      from: f.from || undefined,
      to: f.to || undefined,
      policyVersion: f.policyVersion ? Number(f.policyVersion) : undefined,
      q: f.q || undefined,
      limit: 100,
    }),
    [
      f.experimentId,
      f.runId,
      f.sessionId,
      f.turnType,
      f.status,
      f.score,
      f.agreement,
      f.relabeled,
      f.disputed,
      f.from,
      f.to,
      f.policyVersion,
      f.q,
    ],
  );
  const list = useInfiniteQuery({
    ...trpc.turns.list.infiniteQueryOptions(input, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
    placeholderData: keepPreviousData,
  });
  const rows = useMemo(() => list.data?.pages.flatMap((p) => p.items) ?? [], [list.data]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  const more = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  return (
    <>
      <div className="toolbar">
        <h1 style={{ margin: 0 }}>Trajectories</h1>
        <span className="spacer" />
        <Link className="button" href="/sessions">
          Sessions
        </Link>
        <Link className="button" href="/review">
          Review queues
        </Link>
      </div>
      <div className="filters" data-testid="turn-filters">
        <ExperimentSelect value={f.experimentId} onChange={(v) => set({ experimentId: v, runId: "" })} />
        <Select
          label="Run"
          value={f.runId}
          onChange={(v) => set({ runId: v })}
          options={[
            ["", "Any run"],
            ...(runs.data?.items.map((r) => [r.id, `#${r.number} ${r.status.toLowerCase()}`] as [string, string]) ??
              []),
          ]}
        />
        <DebouncedInput
          label="Session id"
          value={f.sessionId}
          onCommit={(v) => set({ sessionId: v })}
          placeholder="ours or the client's"
        />
        <Select
          label="Turn type"
          value={f.turnType}
          onChange={(v) => set({ turnType: v })}
          options={[
            ["", "Main and side"],
            ["MAIN", "Main"],
            ["SIDE", "Side"],
          ]}
        />
        <Select
          label="Judged score"
          value={f.score}
          onChange={(v) => set({ score: v })}
          options={[
            ["", "Any score"],
            ["1", "+1"],
            ["0", "0"],
            ["-1", "−1"],
            ["unjudged", "Not judged"],
          ]}
        />
        <Select
          label="Vote agreement"
          value={f.agreement}
          onChange={(v) => set({ agreement: v })}
          options={[
            ["", "Any"],
            ["unanimous", "Unanimous"],
            ["split", "Split"],
          ]}
        />
        <Select
          label="Relabeled"
          value={f.relabeled}
          onChange={(v) => set({ relabeled: v })}
          options={[
            ["", "Any"],
            ["true", "Relabeled"],
            ["false", "Not relabeled"],
          ]}
        />
        <Select
          label="Disputed"
          value={f.disputed}
          onChange={(v) => set({ disputed: v })}
          options={[
            ["", "Any"],
            ["true", "Disputed"],
            ["false", "Not disputed"],
          ]}
        />
        <Select
          label="Status"
          value={f.status}
          onChange={(v) => set({ status: v })}
          options={[
            ["", "Any"],
            ["OK", "OK"],
            ["FAILED", "Failed"],
          ]}
        />
        <DebouncedInput
          label="Policy version"
          value={f.policyVersion}
          onCommit={(v) => set({ policyVersion: /^\d+$/.test(v) ? v : "" })}
        />
        <label className="field">
          <span>From</span>
          <input
            aria-label="From"
            type="datetime-local"
            value={toLocal(f.from)}
            onChange={(e) => set({ from: toIso(e.target.value) })}
          />
        </label>
        <label className="field">
          <span>To</span>
          <input
            aria-label="To"
            type="datetime-local"
            value={toLocal(f.to)}
            onChange={(e) => set({ to: toIso(e.target.value) })}
          />
        </label>
      </div>
      <div className="toolbar">
        <div style={{ flex: 1, maxWidth: 520 }}>
          <DebouncedInput
            label="Search messages"
            value={f.q}
            onCommit={(v) => set({ q: v })}
            placeholder='words, "a phrase", -not, or'
          />
        </div>
        <span className="muted" data-testid="turn-count">
          {list.hasNextPage
            ? `${rows.length}+ turns (more as you scroll)`
            : `${rows.length} turn${rows.length === 1 ? "" : "s"}`}
          {list.isFetching ? " · loading…" : ""}
        </span>
        <span className="spacer" />
        {f.experimentId && (
          <a
            className="button"
            href={`/api/export/turns?${new URLSearchParams(Object.entries(f).filter(([, v]) => v) as [string, string][]).toString()}`}
            download
          >
            Export JSONL
          </a>
        )}
        <button onClick={() => router.replace("/trajectories")}>Clear filters</button>
      </div>
      <SavedViews
        storageKey="ocrl.views.trajectories"
        query={query}
        onApply={(q) => router.replace(`/trajectories?${q}`)}
      />
      {list.error && <div className="form-error">{list.error.message}</div>}
      {canPick && (
        <AddToQueue experimentId={f.experimentId} turnIds={[...picked]} onDone={() => setPicked(new Set())} />
      )}
      <VirtualList
        testId="turns-list"
        items={rows}
        height={600}
        rowHeight={38}
        columns={`${canPick ? "24px " : ""}170px 130px 44px 52px 60px 64px 110px 50px minmax(0, 1fr)`}
        header={
          <>
            {canPick && <span />}
            <span>Time</span>
            <span>Session</span>
            <span>#</span>
            <span>Type</span>
            <span>Score</span>
            <span>Votes</span>
            <span>Labels</span>
            <span>Policy</span>
            <span>Response</span>
          </>
        }
        getKey={(r) => r.id}
        onSelect={(r) => router.push(`/trajectories/${r.id}`)}
        onEndReached={more}
        renderRow={(r) => (
          <>
            {canPick && (
              // Outside the row's link, and the click stays here: ticking must not open the turn.
              <label className="pick" onClick={(e) => e.stopPropagation()}>
                <input
                  type="checkbox"
                  aria-label={`Select turn #${r.index} of ${r.sessionExternalId}`}
                  checked={picked.has(r.id)}
                  onChange={() => togglePick(r.id)}
                />
              </label>
            )}
            <RowLink href={`/trajectories/${r.id}`}>
              <span className="muted clip">{new Date(r.createdAt).toLocaleString()}</span>
              <span className="mono clip" title={r.sessionExternalId}>
                {r.sessionExternalId}
              </span>
              <span>{r.index}</span>
              <span className="muted">{r.turnType === "MAIN" ? "main" : "side"}</span>
              <span>
                <span className={`score ${scoreClass(r.score)}`}>{fmtScore(r.score)}</span>
              </span>
              <span className="muted">{r.votesValid ? `${r.votesAgree}/${r.votesValid}` : "—"}</span>
              <span className="clip">
                {r.reviewerValue !== null && <span className="badge reviewer">rev {fmtScore(r.reviewerValue)}</span>}{" "}
                {r.userValue !== null && <span className="badge USER">user {fmtScore(r.userValue)}</span>}{" "}
                {r.disputed && <span className="badge disputed">disputed</span>}
              </span>
              <span className="muted">v{r.policyVersion}</span>
              <span className="clip">
                {r.status === "FAILED" ? (
                  <span className="field-error">{r.error}</span>
                ) : r.hits.length ? (
                  <SearchHit hits={r.hits} />
                ) : (
                  r.preview
                )}
              </span>
            </RowLink>
          </>
        )}
      />
      {list.data && !rows.length && <div className="empty">No turns match these filters.</div>}
      {f.experimentId && canWrite && (
        <div style={{ marginTop: 16 }}>
          <ImportRecords experimentId={f.experimentId} />
        </div>
      )}
    </>
  );
}

export default function TrajectoriesPage() {
  return (
    <Suspense fallback={<div className="muted">Loading…</div>}>
      <Browser />
    </Suspense>
  );
}
