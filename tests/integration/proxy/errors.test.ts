// Failure paths: authentication, bad input, upstream errors and timeouts (kept as failed turns), and the
// process continuing to serve afterwards. Errors use OpenAI's shape, so the official client raises its
// usual APIError subclasses.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { db } from "../../../server/platform/db/client";
import { makeKey, uniq } from "../../helpers/fixtures";
import { harness, post, type Harness } from "./setup";

let h: Harness;
let slow: Harness;
beforeAll(async () => {
  h = await harness();
  // A proxy with a short upstream timeout and a small body limit, for the 504 and 413 cases only.
  slow = await harness({ proxy: { upstreamTimeoutMs: 500, maxBodyBytes: 4096 } });
});
afterAll(async () => {
  await h.close();
  await slow.close();
});

const chat = (extra: Record<string, unknown> = {}) => ({
  model: "x",
  messages: [{ role: "user", content: "hi" }],
  ...extra,
});

async function expectApiError(p: Promise<unknown>, status: number): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(status);
    return err as InstanceType<typeof OpenAI.APIError>;
  }
  throw new Error(`expected HTTP ${status}`);
}

describe("authentication", () => {
  it("answers 401 for a missing or unknown key, 403 without the proxy scope, in OpenAI's error shape", async () => {
    const url = `${h.proxy.url}/v1/chat/completions`;
    const none = await post(url, chat());
    expect(none.status).toBe(401);
    expect(none.json).toEqual({
      error: { message: expect.any(String), type: "authentication_error", param: null, code: "invalid_api_key" },
    });
    const unknown = new OpenAI({
      apiKey: "ocrl_00000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      baseURL: `${h.proxy.url}/v1`,
      maxRetries: 0,
    });
    await expect(unknown.chat.completions.create(chat() as never)).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const readOnly = new OpenAI({
      apiKey: await makeKey(["read"], h.experiment.id),
      baseURL: `${h.proxy.url}/v1`,
      maxRetries: 0,
    });
    await expect(readOnly.chat.completions.create(chat() as never)).rejects.toBeInstanceOf(
      OpenAI.PermissionDeniedError,
    );
  });

  it("routes an unbound key by model = experiment slug, and answers 404 for an unknown slug", async () => {
    const unbound = new OpenAI({ apiKey: await makeKey(["proxy"]), baseURL: `${h.proxy.url}/v1`, maxRetries: 0 });
    const ok = await unbound.chat.completions.create({
      model: h.experiment.slug,
      messages: [{ role: "user", content: "by slug" }],
    });
    expect(ok.choices[0]!.message.content).toBe("echo: by slug");
    expect(h.fake.requests.at(-1)!.body.model).toBe(h.fake.model);
    const err = await expectApiError(
      unbound.chat.completions.create({ model: uniq("no-such-exp"), messages: [{ role: "user", content: "x" }] }),
      404,
    );
    expect(err.code).toBe("model_not_found");
  });
});

describe("bad input", () => {
  it("answers 400 with what is wrong for malformed JSON and schema failures, and keeps serving", async () => {
    const url = `${h.proxy.url}/v1/chat/completions`;
    const auth = { authorization: `Bearer ${h.key}` };
    const malformed = await post(url, '{"model": "x", "messages": [', auth);
    expect(malformed.status).toBe(400);
    expect(malformed.json.error).toMatchObject({ type: "invalid_request_error", code: "invalid_json" });
    expect(malformed.json.error!.message).toMatch(/Malformed JSON/);

    const noMessages = await post(url, { model: "x" }, auth);
    expect(noMessages.status).toBe(400);
    expect(noMessages.json.error).toMatchObject({ param: "messages", code: "invalid_schema" });

    const badRole = await post(url, { model: "x", messages: [{ role: "wizard", content: "hi" }] }, auth);
    expect(badRole.status).toBe(400);
    expect(badRole.json.error!.param).toBe("messages.0.role");

    const twoChoices = await post(url, { ...chat(), n: 2 }, auth);
    expect(twoChoices.status).toBe(400);
    expect(twoChoices.json.error!.param).toBe("n");

    const ok = await h.client.chat.completions.create({
      model: "x",
      messages: [{ role: "user", content: "still here" }],
    });
    expect(ok.choices[0]!.message.content).toBe("echo: still here");
  });

  it("answers 413 above the body limit", async () => {
    const res = await post(
      `${slow.proxy.url}/v1/chat/completions`,
      chat({ messages: [{ role: "user", content: "x".repeat(5000) }] }),
      { authorization: `Bearer ${slow.key}` },
    );
    expect(res.status).toBe(413);
    expect(res.json.error).toMatchObject({ type: "invalid_request_error", code: "request_too_large" });
  });
});

describe("upstream failures", () => {
  async function failedTurn(id: string) {
    await h.proxy.writer.drain();
    await slow.proxy.writer.drain();
    return db().turn.findUniqueOrThrow({ where: { id } });
  }

  it("answers 502 with Retry-After when the upstream fails or drops the connection, and keeps the turn as failed", async () => {
    h.fake.enqueue({ kind: "error", status: 500 });
    const res = await post(`${h.proxy.url}/v1/chat/completions`, chat(), {
      authorization: `Bearer ${h.key}`,
      "x-session-id": uniq("f"),
    });
    expect(res.status).toBe(502);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(res.json.error).toMatchObject({ type: "upstream_error" });
    const turn = await failedTurn(res.headers.get("x-turn-id")!);
    expect(turn).toMatchObject({ status: "FAILED", content: null });
    expect(turn.error).toMatch(/upstream 500/);

    h.fake.enqueue({ kind: "reset" });
    const err = await expectApiError(
      h.client.chat.completions.create({ model: "x", messages: [{ role: "user", content: "boom" }] }),
      502,
    );
    expect(err.headers?.get("retry-after")).toBe("2");

    // Client errors of the upstream are the client's: passed on with the upstream's message.
    h.fake.enqueue({
      kind: "error",
      status: 400,
      body: {
        error: {
          message: "context length exceeded",
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      },
    });
    const tooLong = await expectApiError(
      h.client.chat.completions.create({ model: "x", messages: [{ role: "user", content: "long" }] }),
      400,
    );
    expect(tooLong.code).toBe("context_length_exceeded");
  });

  it("answers 504 when the upstream does not answer in time, and ends a stalled stream with an error event", async () => {
    slow.fake.enqueue({ kind: "hang" });
    const res = await post(`${slow.proxy.url}/v1/chat/completions`, chat(), { authorization: `Bearer ${slow.key}` });
    expect(res.status).toBe(504);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(res.json.error).toMatchObject({ code: "upstream_timeout" });
    expect((await failedTurn(res.headers.get("x-turn-id")!)).status).toBe("FAILED");

    slow.fake.enqueue({ kind: "stall" });
    const stream = await slow.client.chat.completions
      .create({ model: "x", messages: [{ role: "user", content: "stall" }], stream: true })
      .withResponse();
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const c of stream.data) seen.push(c.choices[0]?.delta.content ?? "");
      })(),
    ).rejects.toBeInstanceOf(OpenAI.APIError);
    const turn = await failedTurn(stream.response.headers.get("x-turn-id")!);
    expect(turn.status).toBe("FAILED");
    expect(turn.error).toMatch(/did not answer within 500 ms/);

    // The process keeps serving.
    const ok = await slow.client.chat.completions.create({
      model: "x",
      messages: [{ role: "user", content: "after" }],
    });
    expect(ok.choices[0]!.message.content).toBe("echo: after");
  });
});

describe("client disconnects", () => {
  it("stops the upstream stream and keeps the partial answer as a failed turn", async () => {
    h.fake.enqueue({ content: "one two three four five six seven eight nine ten", chunkDelayMs: 40 });
    const abort = new AbortController();
    const { data, response } = await h.client.chat.completions
      .create({ model: "x", messages: [{ role: "user", content: "long" }], stream: true }, { signal: abort.signal })
      .withResponse();
    let got = "";
    try {
      for await (const c of data) {
        got += c.choices[0]?.delta.content ?? "";
        if (got.split(" ").length > 2) abort.abort();
      }
    } catch {
      /* the client's own abort */
    }
    await h.proxy.writer.drain();
    const id = response.headers.get("x-turn-id")!;
    let turn = await db().turn.findUnique({ where: { id } });
    for (let i = 0; !turn && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 20));
      await h.proxy.writer.drain();
      turn = await db().turn.findUnique({ where: { id } });
    }
    expect(turn).toMatchObject({ status: "FAILED", error: expect.stringMatching(/client disconnected/) });
    expect("one two three four five six seven eight nine ten".startsWith(turn!.content ?? "x")).toBe(true);
    expect(turn!.content!.length).toBeLessThan("one two three four five six seven eight nine ten".length);
  });
});

describe("log-probs", () => {
  it("asks again without log-probs when the upstream rejects them, and stops asking", async () => {
    const r = await harness({ fake: { rejectLogprobs: true } });
    try {
      const a = await r.client.chat.completions.create({ model: "x", messages: [{ role: "user", content: "one" }] });
      expect(a.choices[0]!.message.content).toBe("echo: one");
      expect(r.fake.requests.map((q) => q.body.logprobs ?? null)).toEqual([true, null]);
      await r.client.chat.completions.create({ model: "x", messages: [{ role: "user", content: "two" }] });
      expect(r.fake.requests.map((q) => q.body.logprobs ?? null)).toEqual([true, null, null]);
    } finally {
      await r.close();
    }
  });
});
