// Why a search result matched: for each listed turn, the fields whose text matches the query (the response,
// the messages that led to it, or the next state, which the list does not otherwise show) with a short
// Postgres ts_headline excerpt around the hit. Computed for the rows shown only, never for the rows scanned.
import { db } from "../platform/db/client";
import { Prisma } from "../platform/db/generated/client";
import { HIT_END, HIT_START } from "./hitMarks";

export type HitField = "response" | "messages" | "next state";

export interface SearchHit {
  field: HitField;
  /** Excerpt with each matched word between HIT_START and HIT_END; plain text otherwise (render as text). */
  snippet: string;
}

const OPTIONS = `StartSel=${HIT_START}, StopSel=${HIT_END}, MaxWords=24, MinWords=10`;

// The same texts the turns.search column indexes (migration 20261129220000_exact_json), field by field.
const FIELDS = Prisma.sql`(VALUES
  ('response', 0, "ocrl_search_text"(t.content)),
  ('messages', 1, btrim("ocrl_search_text"(jsonb_path_query_array(t."messagesDelta"::jsonb, '$[*].content')::text), '[] ,')),
  ('next state', 2, "ocrl_search_text"(t."nextState"->>'content'))
) AS x(field, rank, body)`;

export async function searchHits(turnIds: readonly string[], q: string): Promise<Map<string, SearchHit[]>> {
  const hits = new Map<string, SearchHit[]>();
  if (!turnIds.length) return hits;
  const rows = await db().$queryRaw<{ id: string; field: HitField; snippet: string }[]>`
    SELECT t.id, x.field, ts_headline('english', x.body, query, ${OPTIONS}) AS snippet
    FROM turns t CROSS JOIN LATERAL ${FIELDS} CROSS JOIN websearch_to_tsquery('english', ${q}) AS query
    WHERE t.id IN (${Prisma.join(turnIds)}) AND x.body <> '' AND to_tsvector('english', x.body) @@ query
    ORDER BY t.id, x.rank`;
  for (const r of rows) hits.set(r.id, [...(hits.get(r.id) ?? []), { field: r.field, snippet: r.snippet }]);
  return hits;
}
