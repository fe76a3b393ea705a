// Property-based fuzzing of the proxy's public endpoints: random JSON, wrong types, huge and deeply nested
// bodies, invalid UTF-8 and header injection get a 4xx (or a 2xx for a valid-by-chance request), never a
// 5xx or a crash; and nothing half-written: every recorded turn belongs to a 2xx answer or a kept failure.
import net from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { harness, type Harness } from "../integration/proxy/setup";

let h: Harness;
beforeAll(async () => {
  h = await harness({ proxy: { maxBodyBytes: 256 * 1024 } });
});
afterAll(() => h.close());

const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom("system", "user", "assistant", "tool", "developer"), fc.string(), fc.integer()),
    content: fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.constant(null),
      fc.array(fc.record({ type: fc.string(), text: fc.string() }), { maxLength: 3 }),
      fc.integer(),
      fc.object({ maxDepth: 2 }),
    ),
    tool_calls: fc.anything({ maxDepth: 2 }),
  },
  { requiredKeys: [] },
);
const chatBody = fc.record(
  {
    model: fc.oneof(fc.string({ maxLength: 40 }), fc.integer()),
    messages: fc.oneof(fc.array(message, { maxLength: 5 }), fc.anything({ maxDepth: 2 })),
    stream: fc.oneof(fc.boolean(), fc.string()),
    temperature: fc.oneof(fc.double(), fc.string()),
    max_tokens: fc.oneof(fc.integer({ min: -5, max: 8 }), fc.string()),
    n: fc.integer({ min: -1, max: 3 }),
    tools: fc.anything({ maxDepth: 2 }),
    session_id: fc.anything({ maxDepth: 1 }),
    session_done: fc.anything({ maxDepth: 1 }),
    logprobs: fc.anything({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);
const rawBody = fc.oneof(
  chatBody.map((b) => JSON.stringify(b)),
  fc.json({ maxDepth: 3 }),
  fc.constantFrom(
    "{",
    "[]",
    "null",
    "\u0000",
    "[".repeat(4000) + "]".repeat(4000),
    JSON.stringify({ messages: [{ role: "user", content: "x".repeat(300_000) }] }),
  ),
);
const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,60}$/);

async function send(path: string, body: string | Uint8Array, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${h.proxy.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json", ...headers },
    body: body as BodyInit,
  });
  await res.arrayBuffer();
  return res.status;
}

describe("proxy fuzz", () => {
  it("answers random chat bodies and session headers with 2xx/4xx only", async () => {
    await fc.assert(
      fc.asyncProperty(rawBody, headerValue, headerValue, headerValue, async (body, sid, type, done) => {
        const status = await send("/v1/chat/completions", body, {
          "x-session-id": sid,
          "x-turn-type": type,
          "x-session-done": done,
        });
        return status < 500;
      }),
      { numRuns: 150 },
    );
  });

  it("answers random feedback bodies with 2xx/4xx only", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.json({ maxDepth: 3 }),
          fc.anything({ maxDepth: 2 }).map((v) => JSON.stringify(v) ?? "null"),
        ),
        async (body) => (await send("/v1/feedback", body)) < 500,
      ),
      { numRuns: 80 },
    );
  });

  it("rejects invalid UTF-8 with 400 and oversized bodies with 413", async () => {
    expect(await send("/v1/chat/completions", new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]))).toBe(400);
    expect(
      await send(
        "/v1/chat/completions",
        JSON.stringify({ messages: [{ role: "user", content: "x".repeat(400_000) }] }),
      ),
    ).toBe(413);
    // Every body-reading entry point of the proxy: the chat alias and feedback, one byte over the 256 KB cap.
    const over = (field: string) => {
      const shell = JSON.stringify({ [field]: "" });
      return JSON.stringify({ [field]: "x".repeat(256 * 1024 + 1 - shell.length) });
    };
    expect(over("comment").length).toBe(256 * 1024 + 1);
    expect(await send("/chat/completions", over("model"))).toBe(413);
    expect(await send("/v1/feedback", over("comment"))).toBe(413);
  });

  it("survives header injection and malformed HTTP on a raw socket, then serves normally", async () => {
    const port = new URL(h.proxy.url).port;
    const body = JSON.stringify({ messages: [{ role: "user", content: "hi" }] });
    const payloads = [
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.key}\r\nX-Session-Id: a\r\n b\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.key}\r\nContent-Length: 5\r\nContent-Length: 9\r\n\r\n{}`,
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nzz\r\n`,
      `GARBAGE\r\n\r\n`,
    ];
    for (const payload of payloads) {
      const reply = await new Promise<string>((resolve) => {
        const s = net.connect(Number(port), "127.0.0.1", () => s.end(payload));
        let buf = "";
        s.setTimeout(5000, () => s.destroy());
        s.on("data", (d) => (buf += d));
        s.on("close", () => resolve(buf));
        s.on("error", () => resolve(buf));
      });
      expect(Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 400)).toBeLessThan(500);
    }
    const ok = await h.client.chat.completions.create({
      model: "x",
      messages: [{ role: "user", content: "still there?" }],
    });
    expect(ok.choices[0]!.message).toBeTruthy();
  });

  it("leaves no half-written rows: every recorded turn of the experiment is complete", async () => {
    await h.proxy.writer.drain();
    const turns = await db().turn.findMany({ where: { experimentId: h.experiment.id } });
    for (const t of turns) {
      expect(t.sessionId).toBeTruthy();
      expect(Array.isArray(t.messagesDelta)).toBe(true);
      if (t.status === "OK") expect(t.finishReason).toBeTruthy();
      else expect(t.error).toBeTruthy();
    }
  });
});
