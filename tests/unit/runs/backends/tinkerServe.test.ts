// The Tinker bridge's sampling endpoint (integrations/tinker/serve.py, on the fake Tinker SDK) as the proxy's
// policy upstream sees it: the proxy's own OpenAI HTTP upstream (what it uses for a run's rolloutUrl) gets the
// sampled text with the token ids and behaviour log-probs it records, as JSON and replayed as a stream.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpenAiHttpUpstream } from "../../../../server/proxy/upstreams/openaiHttp";

const root = path.resolve(import.meta.dirname, "../../../..");
const PATH_ = "tinker://run-abc/sampler_weights/run-1-step-000003";
// The fake "model" answers `answer from <weights>` in the char-level tokenizer (id = code point), then EOS (3).
const REPLY = `answer from ${PATH_}`;
let child: ChildProcess;
let url: string;
beforeAll(async () => {
  // The endpoint as the bridge starts it (integrations/tinker/tests/serve_fake.py), with step 3's sampler swapped in.
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", PYTHONDONTWRITEBYTECODE: "1" };
  child = spawn("python3", ["integrations/tinker/tests/serve_fake.py"], {
    cwd: root,
    env: env as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const next = () =>
    new Promise<string>((resolve, reject) => {
      lines.once("line", resolve);
      child.once("exit", (code) => reject(new Error(`the endpoint exited (${code})`)));
    });
  url = await next();
  child.stdin!.write(`step 3 ${PATH_}\n`);
  expect(await next()).toBe("serving step 3");
});
afterAll(() => {
  child.stdin?.end();
  child.kill();
});

const upstream = () => new OpenAiHttpUpstream({ kind: "sglang", baseUrl: url, model: "policy", timeoutMs: 10_000 });
const ids = [...REPLY].map((c) => c.codePointAt(0)!).concat(3);
const lp = (t: number) => -((t % 7) + 1) / 10;

describe("Tinker sampling endpoint behind the proxy's upstream", () => {
  it("answers a chat completion with token ids and behaviour log-probs", async () => {
    const res = await upstream().send({
      body: { messages: [{ role: "user", content: "list files" }] },
      stream: false,
      signal: new AbortController().signal,
    });
    expect(res.kind).toBe("json");
    const body = (
      res as {
        body: {
          choices: {
            message: { content: string };
            token_ids: number[];
            logprobs: { content: { logprob: number }[] };
            finish_reason: string;
          }[];
        };
      }
    ).body;
    const c = body.choices[0]!;
    expect(c.message.content).toBe(REPLY);
    expect(c.finish_reason).toBe("stop");
    expect(c.token_ids).toEqual(ids);
    expect(c.logprobs.content.map((e) => e.logprob)).toEqual(ids.map(lp));
  });

  it("is replayed as a stream for a client that streams", async () => {
    const res = await upstream().send({
      body: { messages: [{ role: "user", content: "hi" }] },
      stream: true,
      signal: new AbortController().signal,
    });
    expect(res.kind).toBe("stream");
    let text = "";
    for await (const chunk of (
      res as { chunks: AsyncIterable<{ json: { choices?: { delta?: { content?: string } }[] } }> }
    ).chunks)
      text += chunk.json.choices?.[0]?.delta?.content ?? "";
    expect(text).toBe(REPLY);
  });
});
