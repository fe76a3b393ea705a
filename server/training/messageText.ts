// The text of a recorded chat message whatever its content's shape (a string, or parts of which the text ones
// count), for the rules that read what a user wrote: reply contexts, restated questions.

export function messageText(m: unknown): string {
  const c = (m as { content?: unknown } | null)?.content;
  if (typeof c === "string") return c;
  return Array.isArray(c)
    ? c.map((p) => (typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("")
    : "";
}
