// Eval sets as JSONL: parse (every bad line is named, with its line number and field, before anything is
// written) and serialise (the same format, so a downloaded set uploads again unchanged).
import { badRequest, zodIssues, type Issue } from "../platform/errors";
import { EvalItemLineSchema } from "./schemas";

export interface EvalItemData {
  key: string;
  messages: Record<string, unknown>[];
  reference: string | null;
  rubric: string | null;
  persona: string | null;
  sourceTurnId: string | null;
}

export const MAX_ITEMS = 5000;

/** Parse a JSONL eval set; throws a 400 naming every bad line (up to 20) when any line is invalid. */
export function parseEvalJsonl(text: string): EvalItemData[] {
  const items: EvalItemData[] = [];
  const issues: Issue[] = [];
  const keys = new Map<string, number>();
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = i + 1;
    if (!raw.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      issues.push({ path: `line ${line}`, message: `not valid JSON (${(e as Error).message})` });
      continue;
    }
    const parsed = EvalItemLineSchema.safeParse(value);
    if (!parsed.success) {
      for (const issue of zodIssues(parsed.error))
        issues.push({ path: `line ${line}: ${issue.path}`, message: issue.message });
      continue;
    }
    const l = parsed.data;
    const key = l.key ?? `item-${items.length + 1}`;
    const dup = keys.get(key);
    if (dup !== undefined) {
      issues.push({ path: `line ${line}: key`, message: `duplicate key "${key}" (first on line ${dup})` });
      continue;
    }
    keys.set(key, line);
    items.push({
      key,
      messages: (l.messages ?? [{ role: "user", content: l.prompt! }]) as Record<string, unknown>[],
      reference: l.reference ?? null,
      rubric: l.rubric ?? null,
      persona: l.persona ?? null,
      sourceTurnId: null,
    });
  }
  if (issues.length) {
    const first = issues[0]!;
    throw badRequest(
      `Invalid eval set: ${first.path}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}`,
      issues.slice(0, 20),
    );
  }
  if (!items.length) throw badRequest("Invalid eval set: the file holds no items (one JSON object per line)");
  if (items.length > MAX_ITEMS) throw badRequest(`Invalid eval set: ${items.length} items, at most ${MAX_ITEMS}`);
  return items;
}

export function toEvalJsonl(
  items: readonly Pick<EvalItemData, "key" | "messages" | "reference" | "rubric" | "persona">[],
): string {
  return (
    items
      .map((it) => {
        const line: Record<string, unknown> = { key: it.key, messages: it.messages };
        if (it.reference !== null) line.reference = it.reference;
        if (it.rubric !== null) line.rubric = it.rubric;
        if (it.persona !== null) line.persona = it.persona;
        return JSON.stringify(line);
      })
      .join("\n") + "\n"
  );
}
