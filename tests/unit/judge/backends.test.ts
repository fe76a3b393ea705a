import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJudgeBackend, createOpenAIJudgeBackend } from "../../../server/judge/core/backends";
import { BadResponseError, HttpStatusError } from "../../../server/judge/core/http";
import { JudgeSettingsSchema } from "../../../server/judge/core/schemas";
import { startFakePrmServer, type FakePrmServer } from "../../fakes/prmServer";

let fake: FakePrmServer;
beforeAll(async () => {
  fake = await startFakePrmServer();
});
afterAll(() => fake.close());

const messages = [
  { role: "system" as const, content: "judge" },
  { role: "user" as const, content: "turn" },
];

describe("OpenAI-compatible judge backend", () => {
  it("posts a chat completion with model, temperature, max_tokens and bearer key", async () => {
    const backend = createOpenAIJudgeBackend({ baseUrl: fake.url, model: "qwen3-4b", apiKey: "sk-test" });
    fake.push({ text: "Reasoning… \\boxed{1}" });
    const before = fake.requests.length;
    await expect(backend.complete(messages, { temperature: 0.6, maxTokens: 256 })).resolves.toBe(
      "Reasoning… \\boxed{1}",
    );
    const req = fake.requests[before];
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer sk-test");
    expect(req.body).toEqual({ model: "qwen3-4b", messages, temperature: 0.6, max_tokens: 256, stream: false });
  });

  it("accepts a base URL that already ends in /v1", async () => {
    const backend = createOpenAIJudgeBackend({ baseUrl: `${fake.url}/v1/`, model: "m" });
    fake.push({ text: "\\boxed{0}" });
    const before = fake.requests.length;
    await backend.complete(messages, { temperature: 0, maxTokens: 16 });
    expect(fake.requests[before].path).toBe("/v1/chat/completions");
    expect(fake.requests[before].headers.authorization).toBeUndefined();
  });

  it("puts split-off reasoning before the content so the final box stays last", async () => {
    const backend = createOpenAIJudgeBackend({ baseUrl: fake.url, model: "m" });
    fake.push({ reasoning: "maybe \\boxed{1}", text: "\\boxed{-1}" });
    await expect(backend.complete(messages, { temperature: 0, maxTokens: 16 })).resolves.toBe(
      "maybe \\boxed{1}\n\n\\boxed{-1}",
    );
  });

  it("surfaces HTTP errors with their status and garbage as BadResponseError", async () => {
    const backend = createOpenAIJudgeBackend({ baseUrl: fake.url, model: "m" });
    fake.push({ status: 503, body: "overloaded" });
    await expect(backend.complete(messages, { temperature: 0, maxTokens: 16 })).rejects.toMatchObject({
      name: "HttpStatusError",
      status: 503,
    });
    fake.push({ raw: "<html>not json</html>" });
    await expect(backend.complete(messages, { temperature: 0, maxTokens: 16 })).rejects.toBeInstanceOf(
      BadResponseError,
    );
    fake.push({ raw: JSON.stringify({ choices: [] }) });
    await expect(backend.complete(messages, { temperature: 0, maxTokens: 16 })).rejects.toBeInstanceOf(
      BadResponseError,
    );
    fake.push({ status: 401 });
    await expect(backend.complete(messages, { temperature: 0, maxTokens: 16 })).rejects.toBeInstanceOf(HttpStatusError);
  });
});

describe("createJudgeBackend", () => {
  it("builds the backend named by the settings", () => {
    expect(createJudgeBackend(JudgeSettingsSchema.parse({ kind: "heuristic" })).kind).toBe("heuristic");
    const openai = createJudgeBackend(
      JudgeSettingsSchema.parse({ kind: "openai", baseUrl: fake.url, model: "judge-model" }),
    );
    expect([openai.kind, openai.model, openai.endpoint]).toEqual(["openai", "judge-model", fake.url]);
  });

  it("settings validation rejects an OpenAI judge without endpoint and applies the reference defaults", () => {
    expect(JudgeSettingsSchema.safeParse({ kind: "openai" }).success).toBe(false);
    expect(JudgeSettingsSchema.safeParse({ kind: "custom" }).success).toBe(false);
    const defaults = JudgeSettingsSchema.parse({});
    expect([defaults.kind, defaults.m, defaults.temperature, defaults.includeRequest]).toEqual([
      "heuristic",
      3,
      0.6,
      false,
    ]);
  });
});
