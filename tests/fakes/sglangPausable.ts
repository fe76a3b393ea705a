// A fake SGLang chat server with slime's weight-update pause. The pause body slime posts and the mode SGLang
// reads from it come from tests/fixtures/sglang/pause-contract.json (extracted from the fork's sglang_engine.py
// and SGLang's io_struct.py PauseGenerationReqInput by integrations/contracts/extract_sglang_pause.py), so the
// fake pauses the way the pinned fork really does: "abort" = "Abort and return all requests currently being
// processed" (a graceful abort comes back as a normal completion or last stream chunk with finish_reason
// "abort"); "retract"/"in_place" keep them and finish them after `continue_generation`. Requests that arrive
// while paused wait for `continue_generation`; the chat API extends a final assistant message with
// `continue_final_message`.
//
// Every request is held mid-generation (a stream after its first half, a JSON answer before it is sent) until
// the test calls `update()`, which pauses in the contract's mode, and serves everything after it in full.
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { SLIME_PROFILES } from "../../server/runs/backends/slime/profiles";

type PauseContract = {
  sglang: { choices: string[]; default: string };
  slime: { commit: string; pause_generation: { path: string; json: Record<string, unknown> | null } }[];
};

const PAUSE_CONTRACT = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "..", "fixtures", "sglang", "pause-contract.json"), "utf8"),
) as PauseContract;

/** The mode SGLang pauses in when the fork at `commit` posts its pause body (SGLang's default when it sends none). */
export function pauseModeOf(commit: string = SLIME_PROFILES["openclaw-rl-fork"].commit): string {
  const entry = PAUSE_CONTRACT.slime.find((c) => c.commit === commit);
  if (!entry) throw new Error(`no pause contract extracted for the fork at ${commit}: rerun extract_sglang_pause.py`);
  const mode = entry.pause_generation.json?.mode ?? PAUSE_CONTRACT.sglang.default;
  // SGLang rejects any other mode (PauseGenerationReqInput's Literal).
  if (typeof mode !== "string" || !PAUSE_CONTRACT.sglang.choices.includes(mode))
    throw new Error(`SGLang has no pause mode ${JSON.stringify(mode)}`);
  return mode;
}

export const REPLY = "The weights changed while I was answering, and nobody noticed.";
const HALF = Math.floor(REPLY.length / 2);

type Held = { abort(): void; finish(): void };

export interface FakeSglang {
  url: string;
  bodies: Record<string, unknown>[];
  /** The pause mode a weight update uses (from the contract). */
  pauseMode: string;
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

export async function startFakeSglang(pauseMode: string = pauseModeOf()): Promise<FakeSglang> {
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
              finish: () =>
                res.end(chunk({ content: rest.slice(HALF) }, null) + chunk({}, "stop") + "data: [DONE]\n\n"),
            });
            return notify();
          }
          res.end(chunk({ content: rest }, null) + chunk({}, "stop") + "data: [DONE]\n\n");
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        if (holding) {
          heldNow.push({
            abort: () => res.end(completion(REPLY.slice(0, HALF), "abort")),
            finish: () => res.end(completion(rest, "stop")),
          });
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
    pauseMode,
    held: (n) => new Promise<void>((resolve) => (watchers.push({ n, resolve }), notify())),
    async update() {
      let resume!: () => void;
      paused = new Promise<void>((r) => (resume = r));
      holding = false;
      const held = heldNow.splice(0);
      if (pauseMode === "abort") for (const h of held) h.abort();
      // The weights load while paused; requests that arrive now wait, then everything continues (a retracted
      // or in-place request finishes where it was).
      await new Promise<void>((r) => setImmediate(r));
      paused = null;
      resume();
      if (pauseMode !== "abort") for (const h of held) h.finish();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
