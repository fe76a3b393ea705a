// A fake SGLang chat server with slime's weight-update pause, as SGLang implements the default mode
// (sgl-project/sglang `io_struct.py` PauseGenerationReqInput: mode "abort" = "Abort and return all requests
// currently being processed"; requests that arrive while paused wait for `continue_generation`; a graceful
// abort comes back as a normal completion or last stream chunk with finish_reason "abort"; the chat API
// extends a final assistant message with `continue_final_message`).
//
// Every request is held mid-generation (a stream after its first half, a JSON answer before it is sent) until
// the test calls `update()`, which aborts all of them, and serves everything after it in full.
import http from "node:http";
import type { AddressInfo } from "node:net";

export const REPLY = "The weights changed while I was answering, and nobody noticed.";
const HALF = Math.floor(REPLY.length / 2);

type Held = { abort(): void };

export interface FakeSglang {
  url: string;
  bodies: Record<string, unknown>[];
  /** Resolves when `n` generations are held mid-way. */
  held(n: number): Promise<void>;
  /** A weight update: pause (abort in-flight generations), then continue. */
  update(): Promise<void>;
  close(): Promise<void>;
}

function chunk(delta: Record<string, unknown>, finish: string | null) {
  const json = {
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created: 0,
    model: "fake",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(json)}\n\n`;
}

function completion(content: string, finish: string) {
  return JSON.stringify({
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 0,
    model: "fake",
    choices: [{ index: 0, message: { role: "assistant", content }, logprobs: null, finish_reason: finish }],
    usage: { prompt_tokens: 1, completion_tokens: content.length, total_tokens: content.length + 1 },
  });
}

export async function startFakeSglang(): Promise<FakeSglang> {
  const bodies: Record<string, unknown>[] = [];
  let holding = true;
  let paused: Promise<void> | null = null;
  const heldNow: Held[] = [];
  const watchers: { n: number; resolve(): void }[] = [];
  const notify = () => {
    for (const w of [...watchers]) {
      if (heldNow.length < w.n) continue;
      watchers.splice(watchers.indexOf(w), 1);
      w.resolve();
    }
  };

  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      void (async () => {
        const body = JSON.parse(raw) as Record<string, unknown>;
        bodies.push(body);
        if (paused) await paused;
        const messages = body.messages as { role: string; content: string }[];
        const last = messages.at(-1);
        const prefix = body.continue_final_message === true && last?.role === "assistant" ? last.content : "";
        const rest = REPLY.slice(prefix.length);
        if (body.stream) {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(chunk({ role: "assistant", content: "" }, null));
          if (holding) {
            res.write(chunk({ content: rest.slice(0, HALF) }, null));
            heldNow.push({
              // SGLang's abort chunk may re-send already streamed text: the proxy must not forward it.
              abort: () => res.end(chunk({ content: rest.slice(0, HALF) }, "abort") + "data: [DONE]\n\n"),
            });
            return notify();
          }
          res.end(chunk({ content: rest }, null) + chunk({}, "stop") + "data: [DONE]\n\n");
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        if (holding) {
          heldNow.push({ abort: () => res.end(completion(REPLY.slice(0, HALF), "abort")) });
          return notify();
        }
        res.end(completion(rest, "stop"));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    bodies,
    held: (n) => new Promise<void>((resolve) => (watchers.push({ n, resolve }), notify())),
    async update() {
      let resume!: () => void;
      paused = new Promise<void>((r) => (resume = r));
      holding = false;
      for (const h of heldNow.splice(0)) h.abort();
      // The weights load while paused; requests that arrive now wait, then everything continues.
      await new Promise<void>((r) => setImmediate(r));
      paused = null;
      resume();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
