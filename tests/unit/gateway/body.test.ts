// The bulk-upload line reader: lines come out whole whatever the chunking (a line or a multi-byte character split
// across chunks), the last line needs no newline, and more than the cap is a 413 after the lines before it.
import { describe, expect, it } from "vitest";
import { readCappedLines } from "../../../server/gateway/body";
import { AppError } from "../../../server/platform/errors";

function request(chunks: Uint8Array[]): Request {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  return new Request("http://local/", { method: "POST", body, duplex: "half" } as RequestInit);
}

async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const l of lines) out.push(l);
  return out;
}

describe("readCappedLines", () => {
  it("yields whole lines across chunk boundaries, multi-byte characters included", async () => {
    const bytes = new TextEncoder().encode('{"a":"é"}\n{"b":"日本"}\n\n{"c":1}');
    // One byte at a time: every line and every character is split.
    const chunks = [...bytes].map((b) => Uint8Array.of(b));
    expect(await collect(readCappedLines(request(chunks), 1000))).toEqual(['{"a":"é"}', '{"b":"日本"}', "", '{"c":1}']);
  });

  it("refuses more than the cap with 413 after yielding the lines that fit", async () => {
    const enc = new TextEncoder();
    const seen: string[] = [];
    const err = await (async () => {
      for await (const l of readCappedLines(request([enc.encode("one\ntwo\n"), enc.encode("three\n")]), 10))
        seen.push(l);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("PAYLOAD_TOO_LARGE");
    expect(seen).toEqual(["one", "two"]);
  });
});
