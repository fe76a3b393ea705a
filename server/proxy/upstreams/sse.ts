// Incremental parser for OpenAI-style server-sent events: `data: <json>` events separated by a blank line,
// ending with `data: [DONE]`. Comments (`: keep-alive`) and other fields are ignored.

export class SseParser {
  private buf = "";

  /** Characters of the event still being received (the caller bounds it). */
  get pending(): number {
    return this.buf.length;
  }

  /** Feeds text; returns the data payloads of the events it completed ("[DONE]" included). */
  push(text: string): string[] {
    this.buf += text;
    const out: string[] = [];
    for (;;) {
      const m = /\r?\n\r?\n/.exec(this.buf);
      if (!m) break;
      const event = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      const data = dataOf(event);
      if (data !== null) out.push(data);
    }
    return out;
  }

  /** An unterminated last event (some servers end without the blank line). */
  flush(): string[] {
    const data = dataOf(this.buf);
    this.buf = "";
    return data !== null ? [data] : [];
  }
}

function dataOf(event: string): string | null {
  let data: string | null = null;
  for (const line of event.split(/\r?\n/)) {
    if (!line.startsWith("data:")) continue;
    const v = line.slice(line[5] === " " ? 6 : 5);
    data = data === null ? v : `${data}\n${v}`;
  }
  return data;
}
