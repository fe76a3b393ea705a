// The Tinker bridge's sampling endpoint (integrations/tinker/serve.py, on the fake Tinker SDK) as the proxy's
// policy upstream sees it: the proxy's own OpenAI HTTP upstream (what it uses for a run's rolloutUrl) gets the
// sampled text with the token ids and behaviour log-probs it records, as JSON and replayed as a stream.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeTinkerEndpoint, type FakeTinkerEndpoint } from "../../../helpers/tinkerEndpoint";
import { OpenAiHttpUpstream } from "../../../../server/proxy/upstreams/openaiHttp";

const PATH_ = "tinker://run-abc/sampler_weights/run-1-step-000003";
// The fake "model" answers `answer from <weights>` in the char-level tokenizer (id = code point), then EOS (3).
const REPLY = `answer from ${PATH_}`;
let endpoint: FakeTinkerEndpoint;
let url: string;
beforeAll(async () => {
  // The endpoint as the bridge starts it (integrations/tinker/tests/serve_fake.py), with step 3's sampler swapped in.
  endpoint = await startFakeTinkerEndpoint();
  url = endpoint.url;
  await endpoint.step(3, PATH_);
});
afterAll(() => endpoint.stop());

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
