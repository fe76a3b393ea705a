// OPD's per-token advantage, A_t = teacher_lp_t − old_lp_t (OpenClaw-RL `openclaw-opd/openclaw_opd_api_server.py`), laid over the response for the
// conversation view. The embedded policy is byte-level, so its ids decode to text; multi-byte UTF-8
// characters are merged into one cell carrying the mean gap of their bytes. Other vocabularies show ids.
import { SPECIAL_TOKENS, VOCAB_SIZE } from "../engine/tokenizer";

export interface GapCell {
  text: string;
  /** Mean teacher − policy log-prob over the cell's tokens. */
  gap: number;
  /** Index of the cell's first token in the response. */
  start: number;
  tokens: number;
}

export interface OpdHeatmap {
  cells: GapCell[];
  tokenCount: number;
  meanGap: number;
  minGap: number;
  maxGap: number;
  /** True when the ids were decoded to text (byte-level vocabulary). */
  decoded: boolean;
  /** Set when the three arrays disagree in length (the shortest wins). */
  warning: string | null;
}

const SPECIAL_NAME = new Map<number, string>(Object.entries(SPECIAL_TOKENS).map(([name, id]) => [id, `<|${name}|>`]));

/** UTF-8 sequence length announced by a lead byte (1 for stray continuation bytes, shown on their own). */
function utf8Length(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc0) return 2;
  return 1;
}

export function opdHeatmap(
  tokenIds: readonly number[],
  policy: readonly number[],
  teacher: readonly number[],
): OpdHeatmap | null {
  if (!teacher.length || !policy.length) return null;
  const n = Math.min(teacher.length, policy.length, tokenIds.length || Infinity);
  const warning =
    teacher.length !== policy.length || (tokenIds.length && tokenIds.length !== policy.length)
      ? `lengths differ (tokens ${tokenIds.length}, policy ${policy.length}, teacher ${teacher.length}); showing the first ${n}`
      : null;
  const gaps = Array.from({ length: n }, (_, i) => teacher[i]! - policy[i]!);
  const decoded =
    tokenIds.length > 0 && tokenIds.slice(0, n).every((id) => Number.isInteger(id) && id >= 0 && id < VOCAB_SIZE);
  const cells: GapCell[] = [];
  const mean = (from: number, to: number) => gaps.slice(from, to).reduce((a, b) => a + b, 0) / (to - from);
  const decoder = new TextDecoder();
  for (let i = 0; i < n;) {
    const id = tokenIds[i];
    if (!decoded || id === undefined) {
      cells.push({ text: id === undefined ? `·${i}` : `#${id}`, gap: gaps[i]!, start: i, tokens: 1 });
      i++;
      continue;
    }
    if (id >= 256) {
      cells.push({ text: SPECIAL_NAME.get(id) ?? `<|${id}|>`, gap: gaps[i]!, start: i, tokens: 1 });
      i++;
      continue;
    }
    let len = utf8Length(id);
    // A truncated sequence (or one interrupted by a special id) is cut where it breaks.
    for (let k = 1; k < len; k++) {
      const next = tokenIds[i + k];
      if (i + k >= n || next === undefined || next < 0x80 || next > 0xbf) {
        len = k;
        break;
      }
    }
    cells.push({
      text: decoder.decode(Uint8Array.from(tokenIds.slice(i, i + len))),
      gap: mean(i, i + len),
      start: i,
      tokens: len,
    });
    i += len;
  }
  return {
    cells,
    tokenCount: n,
    meanGap: n ? gaps.reduce((a, b) => a + b, 0) / n : 0,
    minGap: gaps.reduce((a, b) => Math.min(a, b), Infinity),
    maxGap: gaps.reduce((a, b) => Math.max(a, b), -Infinity),
    decoded,
    warning,
  };
}
