// One tenant cannot starve the others or push the proxy out of memory: a key's requests in flight are capped
// (429 past PROXY_MAX_INFLIGHT_PER_KEY, other keys unaffected), a dribbled body is cut after PROXY_BODY_IDLE_MS
// (408, and its slot is free again), and an upstream answer past PROXY_MAX_UPSTREAM_BYTES is refused (502).
// Settings are read when the proxy starts, so they are set before the harness.
process.env.PROXY_MAX_INFLIGHT_PER_KEY = "1";
process.env.PROXY_BODY_IDLE_MS = "600";
process.env.PROXY_MAX_UPSTREAM_BYTES = "4096";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeKey } from "../../helpers/fixtures";
import { harness, post, type Harness } from "./setup";

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

const chat = (key: string, content = "hello") =>
  post(
    `${h.proxy.url}/v1/chat/completions`,
    { model: "x", messages: [{ role: "user", content }] },
    {
      authorization: `Bearer ${key}`,
    },
  );

/** Sends headers and part of a body, then nothing: resolves with the status line the proxy answers. */
function dribble(key: string): { answered: Promise<string>; socket: net.Socket } {
  const { port } = new URL(h.proxy.url);
  const socket = net.connect(Number(port), "127.0.0.1");
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":"x",`,
  );
  const answered = new Promise<string>((resolve) => {
    let data = "";
    socket.on("data", (c) => {
      data += c.toString();
      if (data.includes("\r\n")) resolve(data.split("\r\n")[0]!);
    });
    socket.on("error", (e) => resolve(`error ${e.message}`));
    socket.on("close", () => resolve(`closed after ${JSON.stringify(data)}`));
  });
  return { answered, socket };
}

describe("proxy caps", () => {
  it("caps a key's requests in flight, cuts an idle body with 408, and frees the slot", async () => {
    const key = await makeKey(["proxy"], h.experiment.id);
    const other = await makeKey(["proxy"], h.experiment.id);
    const slow = dribble(key);
    await new Promise((r) => setTimeout(r, 100));
    const second = await chat(key);
    expect(second.status).toBe(429);
    expect(second.json.error?.code).toBe("too_many_concurrent_requests");
    expect((await chat(other)).status).toBe(200);
    expect(await slow.answered).toMatch(/ 408 /);
    slow.socket.destroy();
    expect((await chat(key)).status).toBe(200);
  });

  it("refuses an upstream answer larger than PROXY_MAX_UPSTREAM_BYTES", async () => {
    const key = await makeKey(["proxy"], h.experiment.id);
    h.fake.respond(() => ({ content: "x".repeat(20_000) }));
    try {
      const res = await chat(key);
      expect(res.status).toBe(502);
      expect(res.json.error?.message).toMatch(/exceeds 4096 bytes/);
    } finally {
      h.fake.respond(() => ({ content: "ok" }));
    }
  });
});
