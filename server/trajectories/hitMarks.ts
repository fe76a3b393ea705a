// The marks around a search hit in a ts_headline excerpt (searchHits.ts), apart so the console can import
// them without the database client. Characters no tokenizer keeps and no message is likely to hold; the
// console splits on them and wraps the hits in <mark>, rendering everything as text (never as HTML).
export const HIT_START = "\u27e6";
export const HIT_END = "\u27e7";

/** The excerpt as alternating plain / hit pieces, for rendering. */
export function splitHits(snippet: string): { text: string; hit: boolean }[] {
  const parts: { text: string; hit: boolean }[] = [];
  for (const chunk of snippet.split(HIT_START)) {
    const end = chunk.indexOf(HIT_END);
    if (end === -1) {
      if (chunk) parts.push({ text: chunk, hit: false });
      continue;
    }
    parts.push({ text: chunk.slice(0, end), hit: true });
    if (end + 1 < chunk.length) parts.push({ text: chunk.slice(end + 1), hit: false });
  }
  return parts;
}
