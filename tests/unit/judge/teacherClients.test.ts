import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadResponseError } from "../../../server/judge/core/http";
import { TeacherSettingsSchema, type ChatMessage } from "../../../server/judge/core/schemas";
import {
  createSglangTeacher,
  createTeacherScorer,
  createVllmTeacher,
  renderChatML,
  sglangScoreRequest,
} from "../../../server/judge/core/teacherClients";
import {
  fakeChatTemplate,
  fakeLogprob,
  fakeTokenize,
  sglangInputTokenLogprobs,
  startFakePrmServer,
  type FakePrmServer,
} from "../../fakes/prmServer";

let fake: FakePrmServer;
beforeAll(async () => {
  fake = await startFakePrmServer();
});
afterAll(() => fake.close());

const messages: ChatMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Capital of France?\n\n[user's hint / instruction]\nAnswer in one word." },
];

/** Independent expectation: log-probs of the response tokens right after the prompt tokens. */
function expected(promptIds: number[], respIds: number[]): number[] {
  const all = [...promptIds, ...respIds];
  return respIds.map((id, k) => fakeLogprob(all[promptIds.length + k - 1], id));
}

describe("renderChatML", () => {
  it("renders Qwen-style ChatML with the generation prompt", () => {
    expect(renderChatML(messages)).toBe(
      "<|im_start|>system\nBe brief.<|im_end|>\n" +
        "<|im_start|>user\nCapital of France?\n\n[user's hint / instruction]\nAnswer in one word.<|im_end|>\n" +
        "<|im_start|>assistant\n",
    );
  });

  it("renders tools, tool calls and grouped tool results", () => {
    const tools = [
      { type: "function", function: { name: "get_time", parameters: { type: "object", properties: {} } } },
    ];
    const out = renderChatML(
      [
        { role: "user", content: "time?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "1", type: "function", function: { name: "get_time", arguments: '{"tz": "UTC"}' } }],
        },
        { role: "tool", content: "12:00" },
        { role: "tool", content: "ok" },
      ],
      tools,
    );
    expect(out).toContain(
      '<tools>\n{"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {}}}}\n</tools>',
    );
    expect(out).toContain(
      '<|im_start|>assistant\n<tool_call>\n{"name": "get_time", "arguments": {"tz": "UTC"}}\n</tool_call><|im_end|>\n',
    );
    expect(out).toContain(
      "<|im_start|>user\n<tool_response>\n12:00\n</tool_response>\n<tool_response>\nok\n</tool_response><|im_end|>\n",
    );
    expect(out.endsWith("<|im_start|>assistant\n")).toBe(true);
  });
});

describe("SGLang teacher", () => {
  it("sends input_ids with max_new_tokens 0, temperature 0, return_logprob and logprob_start_len = prompt length - 1", async () => {
    const teacher = createSglangTeacher({ baseUrl: fake.url });
    const respIds = [80, 97, 114, 105, 115]; // "Paris"
    const before = fake.requests.length;
    const lps = await teacher.score(messages, respIds);
    const promptIds = fakeTokenize(renderChatML(messages));
    expect(lps).toEqual(expected(promptIds, respIds));

    const [tok, gen] = fake.requests.slice(before);
    expect(tok).toMatchObject({
      path: "/generate",
      body: { text: renderChatML(messages), sampling_params: { max_new_tokens: 0 }, logprob_start_len: 0 },
    });
    expect(gen.path).toBe("/generate");
    expect(gen.body).toEqual({
      input_ids: [...promptIds, ...respIds],
      sampling_params: { max_new_tokens: 0, temperature: 0 },
      return_logprob: true,
      logprob_start_len: promptIds.length - 1,
    });
  });

  it("scores through slime's sgl-router, which has no /tokenize (its extracted route table)", async () => {
    const router = await startFakePrmServer({ router: true });
    try {
      const res = await fetch(`${router.url}/tokenize`, { method: "POST", body: "{}" });
      expect(res.status).toBe(404);
      for (const response of [[80, 97, 114, 105, 115], "Paris"]) {
        const lps = await createSglangTeacher({ baseUrl: `${router.url}/v1` }).score(messages, response);
        expect(lps).toEqual(expected(fakeTokenize(renderChatML(messages)), fakeTokenize("Paris")));
      }
      expect(router.requests.filter((r) => r.path !== "/generate").map((r) => r.path)).toEqual(["/tokenize"]);
    } finally {
      await router.close();
    }
  });

  it("regression: the old request (logprob_start_len = prompt length) fails against SGLang's behaviour", async () => {
    const promptIds = fakeTokenize(renderChatML(messages));
    const respIds = [80, 97, 114, 105, 115];
    const oldBody = { ...sglangScoreRequest(promptIds, respIds), logprob_start_len: promptIds.length };
    const res = await fetch(`${fake.url}/generate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(oldBody),
    });
    const entries = ((await res.json()) as { meta_info: { input_token_logprobs: [number | null, number, null][] } })
      .meta_info.input_token_logprobs;
    // SGLang puts None at logprob_start_len, which was the first response token: the old client threw there.
    expect(entries).toHaveLength(respIds.length);
    expect(entries[0]).toEqual([null, respIds[0], null]);
    // And the client itself refuses such a reply instead of training on a shifted span.
    fake.pushNative("/generate", { raw: JSON.stringify({ meta_info: { input_token_logprobs: entries } }) });
    await expect(createSglangTeacher({ baseUrl: fake.url }).score(messages, respIds)).rejects.toThrow(/no log-prob/);
  });

  it("the fake follows SGLang's [None] + raw[:-1] over origin_input_ids[start:]", () => {
    const ids = [5, 6, 7, 8];
    expect(sglangInputTokenLogprobs(ids, 1)).toEqual([
      [null, 6, null],
      [fakeLogprob(6, 7), 7, null],
      [fakeLogprob(7, 8), 8, null],
    ]);
    // -1 = the last input token only (its entry is None); a start at the length aborts.
    expect(sglangInputTokenLogprobs(ids, -1)).toEqual([[null, 8, null]]);
    expect(sglangInputTokenLogprobs(ids, 4)).toMatch(/is higher than the number of input tokens/);
  });

  it("rejects a reply whose token ids are not the response's", async () => {
    const teacher = createSglangTeacher({ baseUrl: fake.url });
    fake.pushNative("/generate", {
      raw: JSON.stringify({
        meta_info: {
          input_token_logprobs: [
            [null, 9, null],
            [-0.1, 1, null],
            [-0.2, 3, null],
          ],
        },
      }),
    });
    await expect(teacher.score(messages, [1, 2])).rejects.toThrow(/misaligned/);
  });

  it("tokenizes a text response separately and scores the same span", async () => {
    const teacher = createSglangTeacher({ baseUrl: `${fake.url}/v1` });
    const lps = await teacher.score(messages, "Paris");
    expect(lps).toEqual(expected(fakeTokenize(renderChatML(messages)), fakeTokenize("Paris")));
    expect(await teacher.score(messages, [])).toEqual([]);
  });

  it("rejects a reply that is too short or has a null in the response span", async () => {
    const teacher = createSglangTeacher({ baseUrl: fake.url });
    fake.pushNative("/generate", { raw: JSON.stringify({ meta_info: { input_token_logprobs: [[-0.1, 1, null]] } }) });
    await expect(teacher.score(messages, [1, 2])).rejects.toBeInstanceOf(BadResponseError);
    fake.pushNative("/generate", {
      raw: JSON.stringify({
        meta_info: {
          input_token_logprobs: [
            [-0.3, 0, null],
            [null, 1, null],
            [-0.5, 2, null],
          ],
        },
      }),
    });
    await expect(teacher.score(messages, [1, 2])).rejects.toThrow(/no log-prob/);
    fake.pushNative("/generate", { status: 500 });
    await expect(teacher.score(messages, [1])).rejects.toMatchObject({ status: 500 });
  });
});

describe("teacher context rendered with the checkpoint's own chat template", () => {
  const fixtures = join(import.meta.dirname, "../../fixtures/chat-templates");
  const expectedCases = JSON.parse(readFileSync(join(fixtures, "expected.json"), "utf8")).cases as {
    conversation: string;
    template: string;
    text: string;
  }[];
  const conversations = JSON.parse(readFileSync(join(fixtures, "conversations.json"), "utf8")).conversations as {
    name: string;
    add_generation_prompt: boolean;
    messages: ChatMessage[];
    tools?: unknown[];
    kwargs?: Record<string, unknown>;
  }[];

  it.each(["Qwen3-4B-Instruct-2507", "Qwen3-4B-Thinking-2507", "Qwen3.5-4B"])(
    "SGLang tokenizes exactly the reference render of %s (tools round trip)",
    async (name) => {
      const conv = conversations.find((c) => c.name === "tools_round_trip_generation")!;
      const want = expectedCases.find((c) => c.template === name && c.conversation === conv.name)!.text;
      const teacher = createTeacherScorer(
        TeacherSettingsSchema.parse({
          kind: "sglang",
          baseUrl: fake.url,
          template: "checkpoint",
          chatTemplate: readFileSync(join(fixtures, `${name}.jinja`), "utf8"),
          chatTemplateKwargs: conv.kwargs,
        }),
      )!;
      expect(teacher.template).toBe("checkpoint");
      const before = fake.requests.length;
      const respIds = [79, 75];
      const lps = await teacher.score(conv.messages, respIds, { tools: conv.tools });
      expect(fake.requests[before]).toMatchObject({ path: "/generate", body: { text: want } });
      expect(lps).toEqual(expected(fakeTokenize(want), respIds));
    },
  );

  it("without a checkpoint template falls back to ChatML and says so", () => {
    expect(
      createTeacherScorer(TeacherSettingsSchema.parse({ kind: "sglang", baseUrl: fake.url, template: "chatml" }))!
        .template,
    ).toBe("chatml");
    expect(
      createTeacherScorer(TeacherSettingsSchema.parse({ kind: "vllm", baseUrl: fake.url, model: "m" }))!.template,
    ).toBe("server");
    expect(() => TeacherSettingsSchema.parse({ kind: "sglang", baseUrl: fake.url, template: "checkpoint" })).toThrow(
      /chatTemplate/,
    );
  });
});

describe("vLLM teacher", () => {
  it("uses the server chat template, echoes the prompt and reads the response span (max_tokens 1)", async () => {
    const teacher = createVllmTeacher({ baseUrl: fake.url, model: "teacher", apiKey: "k" });
    const respIds = [79, 75]; // "OK"
    const before = fake.requests.length;
    const lps = await teacher.score(messages, respIds, { tools: [{ type: "function", function: { name: "f" } }] });
    const promptIds = fakeTokenize(fakeChatTemplate(messages));
    expect(lps).toEqual(expected(promptIds, respIds));

    const [tok, comp] = fake.requests.slice(before);
    expect(tok.body).toEqual({
      model: "teacher",
      messages,
      add_generation_prompt: true,
      tools: [{ type: "function", function: { name: "f" } }],
    });
    expect(comp.path).toBe("/v1/completions");
    expect(comp.headers.authorization).toBe("Bearer k");
    expect(comp.body).toEqual({
      model: "teacher",
      prompt: [...promptIds, ...respIds],
      echo: true,
      logprobs: 1,
      max_tokens: 1,
      temperature: 0,
    });
  });

  it("with max_tokens 0 and a local ChatML template scores the same span", async () => {
    const teacher = createVllmTeacher({
      baseUrl: `${fake.url}/v1`,
      model: "teacher",
      template: "chatml",
      maxTokens: 0,
    });
    const lps = await teacher.score(messages, "OK");
    expect(lps).toEqual(expected(fakeTokenize(renderChatML(messages)), fakeTokenize("OK")));
  });

  it("rejects a truncated log-prob list", async () => {
    const teacher = createVllmTeacher({ baseUrl: fake.url, model: "teacher" });
    fake.pushNative("/v1/completions", {
      raw: JSON.stringify({ choices: [{ logprobs: { token_logprobs: [null, -0.2] } }] }),
    });
    await expect(teacher.score(messages, [1, 2, 3])).rejects.toBeInstanceOf(BadResponseError);
  });
});

describe("createTeacherScorer", () => {
  it("builds clients from settings and returns null without a remote teacher", () => {
    expect(
      createTeacherScorer({ kind: "none", vllmMaxTokens: 1, timeoutMs: 1000, retries: 0, concurrency: 1 }),
    ).toBeNull();
    expect(
      createTeacherScorer({
        kind: "sglang",
        baseUrl: fake.url,
        vllmMaxTokens: 1,
        timeoutMs: 1000,
        retries: 0,
        concurrency: 1,
      })?.kind,
    ).toBe("sglang");
    expect(
      createTeacherScorer({
        kind: "vllm",
        baseUrl: fake.url,
        model: "t",
        vllmMaxTokens: 0,
        timeoutMs: 1000,
        retries: 0,
        concurrency: 1,
      })?.kind,
    ).toBe("vllm");
  });
});
