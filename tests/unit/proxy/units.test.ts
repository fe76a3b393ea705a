// The proxy's pure parts, each against hand-computed or independently generated expectations:
// compact storage round trips, normalization and stitching, SSE parsing, stream accumulation, session
// metadata, the disk buffer and percentiles.
import { mkdtemp, readdir, appendFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { IncomingMessage } from "node:http";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  assembleMessages,
  encodeDelta,
  foldDeltas,
  messageDigests,
  splitSystem,
} from "../../../server/recording/compact";
import {
  ContextMatcher,
  extractNextState,
  normalizeAll,
  normalizeMessage,
  OPENCLAW_CONTEXT_BEGIN,
} from "../../../server/proxy/normalize";
import { chainHashes, extendChain, StitchIndex } from "../../../server/proxy/stitch";
import { SseParser } from "../../../server/proxy/upstreams/sse";
import { fromCompletion, StreamAccumulator } from "../../../server/proxy/accumulate";
import { extractSessionMeta } from "../../../server/proxy/sessionMeta";
import { DiskBuffer } from "../../../server/proxy/recorder/diskBuffer";
import { percentile } from "../../../server/proxy/metrics";
import type { ChatMessage, ChatRequest } from "../../../server/proxy/schemas";
import type { RecordEvent } from "../../../server/proxy/recorder/events";

const ctx = new ContextMatcher();

describe("compact storage", () => {
  const message = fc.record({
    role: fc.constantFrom("user", "assistant", "tool"),
    content: fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null)),
  });
  // A lane evolves like a chat: mostly appends, sometimes a rewrite of the tail (edits, compaction).
  const lane = fc.array(fc.tuple(fc.nat(6), fc.array(message, { maxLength: 4 })), { minLength: 1, maxLength: 12 });

  it("folding the deltas of a lane gives back every turn's body exactly", () => {
    fc.assert(
      fc.property(lane, (steps) => {
        let body: unknown[] = [];
        let prev: string[] | null = null;
        const stored: { messagesOffset: number; messagesDelta: unknown[] }[] = [];
        for (const [keep, added] of steps) {
          body = [...body.slice(0, Math.min(keep, body.length)), ...added];
          const digests = messageDigests(body);
          stored.push(encodeDelta(prev, digests, body));
          prev = digests;
          expect(foldDeltas(stored)).toEqual(body);
        }
      }),
    );
  });

  it("stores only what a turn appended, and the system message apart", () => {
    const sys = { role: "system", content: "S" };
    const t1 = [{ role: "user", content: "a" }];
    const t2 = [...t1, { role: "assistant", content: "b" }, { role: "user", content: "c" }];
    expect(splitSystem([sys, ...t1])).toEqual({ system: sys, body: t1 });
    const d1 = encodeDelta(null, messageDigests(t1), t1);
    const d2 = encodeDelta(messageDigests(t1), messageDigests(t2), t2);
    expect(d2).toEqual({
      messagesOffset: 1,
      messagesDelta: [
        { role: "assistant", content: "b" },
        { role: "user", content: "c" },
      ],
    });
    expect(assembleMessages(sys, [d1, d2])).toEqual([sys, ...t2]);
  });
});

describe("normalization and stitching", () => {
  it("treats content arrays, date envelopes and renumbered tool-call ids as the same message", () => {
    const a: ChatMessage = { role: "user", content: [{ type: "text", text: "[Mon 2026-03-02 10:15 UTC] hello" }] };
    const b: ChatMessage = { role: "user", content: "hello" };
    expect(normalizeMessage(a, ctx)).toBe(normalizeMessage(b, ctx));
    const c1: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: '{"b":1,"a":2}' } }],
    };
    const c2: ChatMessage = {
      role: "assistant",
      content: "",
      tool_calls: [{ id: "toolu_9", type: "function", function: { name: "f", arguments: '{"a": 2, "b": 1}' } }],
    };
    expect(normalizeMessage(c1, ctx)).toBe(normalizeMessage(c2, ctx));
    expect(normalizeMessage({ role: "user", content: "hello!" }, ctx)).not.toBe(normalizeMessage(b, ctx));
  });

  it("skips context blocks (built-in marker and configured patterns) for stitching and next states", () => {
    const block: ChatMessage = {
      role: "user",
      content: `${OPENCLAW_CONTEXT_BEGIN}\n{"x":1}\n<<<END_OPENCLAW_INTERNAL_CONTEXT>>>`,
    };
    const said: ChatMessage = { role: "user", content: "the real message" };
    expect(normalizeAll([said, block], ctx)).toHaveLength(1);
    expect(extractNextState([said, block], ctx)).toBe(said);
    const custom = new ContextMatcher(["^<memory>"]);
    const memory: ChatMessage = { role: "user", content: "<memory>likes tea</memory>" };
    expect(extractNextState([said, memory], custom)).toBe(said);
    expect(extractNextState([said, memory], ctx)).toBe(memory);
    // A context part inside a content array is removed from the next state, the rest kept.
    const mixed: ChatMessage = {
      role: "user",
      content: [
        { type: "text", text: "hi" },
        { type: "text", text: `${OPENCLAW_CONTEXT_BEGIN} x` },
      ],
    };
    expect(extractNextState([mixed], ctx)).toEqual({ role: "user", content: [{ type: "text", text: "hi" }] });
  });

  it("finds the longest registered proper prefix, and only a live registration continues", async () => {
    const idx = new StitchIndex({ maxEntries: 100, ttlMs: 60_000 });
    const n = ["m1", "m2", "m3", "m4"];
    const chain = chainHashes("exp", "key", n);
    expect(chain[1]).toBe(extendChain(chain[0]!, "m2"));
    idx.register(chain[0]!, { sessionKey: "s", seq: 1 });
    idx.register(chain[2]!, { sessionKey: "s", seq: 2 });
    expect(await idx.lookup(chain)).toEqual({ target: { sessionKey: "s", seq: 2 }, length: 3, shared: false });
    expect(await idx.lookup(chain.slice(0, 3))).toEqual({
      target: { sessionKey: "s", seq: 1 },
      length: 1,
      shared: false,
    }); // a full match is not a continuation
    expect(await idx.lookup(chainHashes("other-exp", "key", n))).toBeNull();
    // Another API key with the same opening starts its own session.
    expect(await idx.lookup(chainHashes("exp", "other-key", n))).toBeNull();
    idx.forgetSession("s");
    expect(await idx.lookup(chain)).toEqual({ target: { sessionKey: "s", seq: 1 }, length: 1, shared: false });
  });
});

describe("SSE and stream accumulation", () => {
  it("parses events split anywhere, with CRLF, comments and [DONE]", () => {
    const text = ': keep-alive\r\n\r\ndata: {"a":1}\r\n\r\ndata: {"b":\ndata: 2}\n\ndata: [DONE]\n\n';
    for (const cut of [1, 7, 20, 33, text.length - 3]) {
      const p = new SseParser();
      expect([...p.push(text.slice(0, cut)), ...p.push(text.slice(cut)), ...p.flush()]).toEqual([
        '{"a":1}',
        '{"b":\n2}',
        "[DONE]",
      ]);
    }
  });

  it("merges tool-call pieces, reasoning, log-probs and usage", () => {
    const acc = new StreamAccumulator();
    const chunk = (delta: object, extra: object = {}) => ({ choices: [{ index: 0, delta, ...extra }] });
    expect(acc.push(chunk({ role: "assistant", content: "" }))).toBe(false);
    expect(acc.push(chunk({ reasoning_content: "hmm" }))).toBe(true);
    acc.push(chunk({ content: "Hi" }, { logprobs: { content: [{ token: "token_id:7", logprob: -0.5 }] } }));
    acc.push(
      chunk({ tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "get", arguments: '{"ci' } }] }),
    );
    acc.push(chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"P"}' } }] }));
    acc.push(chunk({}, { finish_reason: "tool_calls" }));
    acc.push({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 3 } });
    expect(acc.result()).toEqual({
      content: "Hi",
      reasoning: "hmm",
      toolCalls: [{ id: "c1", type: "function", function: { name: "get", arguments: '{"city":"P"}' } }],
      finishReason: "tool_calls",
      tokenIds: [7],
      logprobs: [-0.5],
      promptTokens: 11,
      completionTokens: 3,
      model: null,
    });
    expect(
      fromCompletion({
        model: "m",
        choices: [
          {
            message: { content: "x" },
            token_ids: [4, 5],
            logprobs: {
              content: [
                { token: "x", logprob: -1 },
                { token: "", logprob: -2 },
              ],
            },
            finish_reason: "stop",
          },
        ],
      }),
    ).toMatchObject({
      content: "x",
      tokenIds: [4, 5],
      logprobs: [-1, -2],
      model: "m",
    });
  });
});

describe("session metadata", () => {
  const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
  const body = (extra: object): ChatRequest =>
    ({ messages: [{ role: "user", content: "x" }], ...extra }) as ChatRequest;

  it("prefers headers, falls back to body fields, removes the body fields, and reads done like the reference", () => {
    const a = extractSessionMeta(
      req({ "x-session-id": "h", "x-turn-type": "MAIN", "x-session-done": "on" }),
      body({ session_id: "b", turn_type: "side" }),
    );
    expect(a.meta).toMatchObject({
      sessionId: { value: "h", source: "header" },
      turnType: { main: true, source: "header" },
      done: true,
    });
    expect(a.forward).not.toHaveProperty("session_id");
    const b = extractSessionMeta(req({}), body({ session_id: 42, turn_type: "heartbeat", session_done: "no" }));
    expect(b.meta).toMatchObject({
      sessionId: { value: "42", source: "body" },
      turnType: { main: false, source: "body" },
      done: false,
    });
    for (const v of ["1", "true", "yes", "on", "TRUE"])
      expect(extractSessionMeta(req({ "x-session-done": v }), body({})).meta.done).toBe(true);
    expect(extractSessionMeta(req({}), body({})).meta).toMatchObject({ sessionId: null, turnType: null, done: false });
  });
});

describe("disk buffer", () => {
  const ev = (i: number): RecordEvent => ({
    t: "label",
    id: `l${i}`,
    turnId: "t",
    value: 1,
    comment: "x".repeat(50),
    apiKeyId: null,
    createdAt: i,
  });

  it("appends in order, rotates, survives a reopen, skips a torn line, and drops past its bound", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "buf-"));
    const a = new DiskBuffer(dir, 10_000);
    await a.open();
    await a.append([ev(1), ev(2)]);
    await a.rotate();
    await a.append([ev(3)]);
    expect(a.depth).toBe(3);
    await a.close();
    const files = (await readdir(dir)).sort();
    expect(files).toHaveLength(2);
    await appendFile(path.join(dir, files[1]!), '{"t":"label","id":"torn'); // a crash mid-write

    const b = new DiskBuffer(dir, 10_000);
    await b.open();
    const first = await b.read(b.oldest()!.file);
    expect(first.events.map((e) => (e as { id: string }).id)).toEqual(["l1", "l2"]);
    await b.remove(b.oldest()!.file);
    const second = await b.read(b.oldest()!.file);
    expect(second).toMatchObject({ skipped: 1 });
    expect(second.events.map((e) => (e as { id: string }).id)).toEqual(["l3"]);
    await b.remove(b.oldest()!.file);
    expect(b.empty).toBe(true);

    const line = JSON.stringify(ev(0)).length + 1;
    const small = new DiskBuffer(await mkdtemp(path.join(os.tmpdir(), "buf-")), line * 2);
    await small.open();
    await small.append([ev(1), ev(2), ev(3)]);
    expect([small.depth, small.dropped]).toEqual([2, 1]);
    await small.close();
  });
});

describe("percentile", () => {
  it("is the nearest-rank percentile", () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(xs, 50), percentile(xs, 99), percentile(xs, 100), percentile([], 50)]).toEqual([
      50,
      99,
      100,
      null,
    ]);
  });
});
