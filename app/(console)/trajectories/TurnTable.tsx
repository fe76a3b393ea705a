"use client";
// The windowed grid of turns (presentational): one row per turn, its cells inside one link to the turn.
import { fmtScore, scoreClass } from "../_components/format";
import { RowLink } from "../_components/RowLink";
import { SearchHit } from "../_components/SearchHit";
import { VirtualList } from "../_components/VirtualList";
import type { TurnRow } from "./_hooks/useTurnList";

const HEADER = ["Time", "Session", "#", "Type", "Score", "Votes", "Labels", "Policy", "Response"];

export function TurnTable({
  rows,
  onOpen,
  onEndReached,
  pick,
}: {
  rows: readonly TurnRow[];
  onOpen: (row: TurnRow) => void;
  onEndReached: () => void;
  /** Tick boxes (to add turns to a review queue), when the user may. */
  pick?: { picked: ReadonlySet<string>; toggle: (id: string) => void };
}) {
  return (
    <VirtualList
      testId="turns-list"
      label="Turns"
      items={rows}
      height={600}
      rowHeight={38}
      columns={`${pick ? "24px " : ""}170px 130px 44px 52px 60px 64px 110px 50px minmax(0, 1fr)`}
      header={
        pick
          ? [
              <span key="pick" className="sr-only">
                Selected
              </span>,
              ...HEADER,
            ]
          : HEADER
      }
      getKey={(r) => r.id}
      onSelect={onOpen}
      onEndReached={onEndReached}
      renderRow={(r) => (
        <>
          {pick && (
            // Outside the row's link, and the click stays here: ticking must not open the turn.
            <div role="gridcell" className="pick" onClick={(e) => e.stopPropagation()}>
              <input
                type="checkbox"
                aria-label={`Select turn #${r.index} of ${r.sessionExternalId}`}
                checked={pick.picked.has(r.id)}
                onChange={() => pick.toggle(r.id)}
              />
            </div>
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
  );
}
