"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { Suspense } from "react";
import { DebouncedInput } from "../../_ui/Field";
import { Spacer, Toolbar } from "../../_ui/Toolbar";
import { ImportRecords } from "../_components/ImportRecords";
import { usePermission } from "../_components/Permission";
import { SavedViews } from "../_components/SavedViews";
import { AddToQueue } from "./AddToQueue";
import { TurnFilterBar } from "./TurnFilterBar";
import { TurnTable } from "./TurnTable";
import { usePickedTurns, useRunChoices, useTurnFilters, useTurnList } from "./_hooks/useTurnList";

/** Filters live in the URL, so a filtered view can be shared and survives a reload. */
function Browser() {
  const router = useRouter();
  const [f, set, query] = useTurnFilters();
  const runs = useRunChoices(f.experimentId);
  const { can } = usePermission();
  const pick = usePickedTurns(f.experimentId, can("review"));
  const { list, rows, more } = useTurnList(f);

  return (
    <>
      <Toolbar title="Trajectories">
        <Spacer />
        <Link className="button" href="/sessions">
          Sessions
        </Link>
        <Link className="button" href="/review">
          Review queues
        </Link>
      </Toolbar>
      <TurnFilterBar f={f} set={set} runs={runs} />
      <div className="toolbar">
        <div style={{ flex: 1, maxWidth: 520 }}>
          <DebouncedInput
            label="Search messages"
            value={f.q ?? ""}
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
        <Spacer />
        {f.experimentId && (
          <a className="button" href={`/api/export/turns?${query}`} download>
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
      {pick.canPick && f.experimentId && (
        <AddToQueue experimentId={f.experimentId} turnIds={[...pick.picked]} onDone={pick.clear} />
      )}
      <TurnTable
        rows={rows}
        onOpen={(r) => router.push(`/trajectories/${r.id}`)}
        onEndReached={more}
        pick={pick.canPick ? pick : undefined}
      />
      {list.data && !rows.length && <div className="empty">No turns match these filters.</div>}
      {f.experimentId && can("write") && (
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
