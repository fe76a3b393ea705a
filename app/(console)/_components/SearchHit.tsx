"use client";
import { HIT_END, HIT_START, splitHits } from "../../../server/trajectories/hitMarks";

interface Hit {
  field: string;
  snippet: string;
}

const plain = (s: string) => s.split(HIT_START).join("").split(HIT_END).join("");

/** Why a search result matched: where (response, messages, next state) and the excerpt with the hit marked. */
export function SearchHit({ hits }: { hits: readonly Hit[] }) {
  const first = hits[0];
  if (!first) return null;
  return (
    <span
      className="search-hit"
      data-testid="search-hit"
      data-field={first.field}
      title={hits.map((h) => `${h.field}: ${plain(h.snippet)}`).join("\n")}
    >
      {first.field !== "response" && <span className="badge">in {first.field}</span>}{" "}
      {splitHits(first.snippet).map((p, i) => (p.hit ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
    </span>
  );
}
