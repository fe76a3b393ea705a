// Policy versions: weight updates switch the serving version without a single 503, each turn carries the
// version that produced it, and the embedded engine serves through the same proxy with its token ids and
// behaviour log-probs recorded. Also the per-second serving metrics.
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { db } from "../../../server/platform/db/client";
import { publish, subscribe } from "../../../server/platform/bus/pubsub";
import { KEYS, ProxyMetricsSchema } from "../../../server/platform/bus/contracts";
import { redis, rkey } from "../../../server/platform/redis";
import { startRun } from "../../../server/runs/service";
import { createExperiment } from "../../../server/experiments/service";
import { ExperimentConfigSchema } from "../../../server/config/experimentConfig";
import { initBackend } from "../../../server/engine/backend";
import { saveCheckpoint } from "../../../server/engine/checkpoint";
import { createModel } from "../../../server/engine/model";
import { EmbeddedEngine } from "../../../server/engine/engine";
import { VOCAB_SIZE } from "../../../server/engine/tokenizer";
import { startProxy } from "../../../server/proxy/server";
import { makeKey, uniq } from "../../helpers/fixtures";
import { startFakeUpstream } from "../../../bench/lib/fakeOpenaiUpstream";
import { adminPrincipal, harness, tempDataDir, type Harness } from "./setup";

async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function activate(experimentId: string, version: number, checkpointPath: string | null) {
  await db().policyVersion.updateMany({ where: { experimentId, status: "ACTIVE" }, data: { status: "RETIRED" } });
  await db().policyVersion.create({ data: { experimentId, version, status: "ACTIVE", checkpointPath } });
  await publish("policyVersion", { experimentId, version, checkpointPath });
}

describe("weight updates", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(() => h.close());

  it("switch without 503s; an answer in flight keeps the version it started with; turns carry their run", async () => {
    const run = await startRun(await adminPrincipal(), h.experiment.id);
    const headers = { "X-Session-Id": uniq("v"), "X-Turn-Type": "main" };
    const first = await h.client.chat.completions
      .create({ model: "x", messages: [{ role: "user", content: "v0" }] }, { headers })
      .withResponse();
    expect(first.response.headers.get("x-policy-version")).toBe("0");

    await activate(h.experiment.id, 1, null);
    await until(() => h.proxy.experiments.get(h.experiment.id)?.policyVersion === 1, "version 1");

    h.fake.enqueue({ content: "slow answer", delayMs: 400 });
    const before = h.fake.requests.length;
    const inFlight = h.client.chat.completions
      .create({ model: "x", messages: [{ role: "user", content: "slow" }] }, { headers })
      .withResponse();
    await until(() => h.fake.requests.length > before, "the slow request to reach the upstream");
    await activate(h.experiment.id, 2, null);
    await until(() => h.proxy.experiments.get(h.experiment.id)?.policyVersion === 2, "version 2");
    const after = await h.client.chat.completions
      .create({ model: "x", messages: [{ role: "user", content: "v2" }] }, { headers })
      .withResponse();
    const slow = await inFlight;
    expect(slow.data.choices[0]!.message.content).toBe("slow answer");

    await h.proxy.writer.drain();
    const ids = [first, slow, after].map((r) => r.response.headers.get("x-turn-id")!);
    const turns = await db().turn.findMany({ where: { id: { in: ids } } });
    const version = (id: string) => turns.find((t) => t.id === id)!.policyVersion;
    expect(ids.map(version)).toEqual([0, 1, 2]);
    expect(turns.every((t) => t.runId === run.id)).toBe(true);
  });

  it("publishes per-second metrics to Redis and the metrics channel, and persists coarse points", async () => {
    const messages: string[] = [];
    const unsubscribe = await subscribe(
      "metrics",
      (m) => m.experimentId === h.experiment.id && messages.push(JSON.stringify(m)),
    );
    try {
      await h.proxy.metrics.tick(); // close the window of the earlier tests
      for (let i = 0; i < 3; i++)
        await h.client.chat.completions.create({ model: "x", messages: [{ role: "user", content: `m${i}` }] });
      h.fake.enqueue({ kind: "error", status: 503 });
      await h.client.chat.completions
        .create({ model: "x", messages: [{ role: "user", content: "fail" }] })
        .catch(() => {});
      await h.proxy.metrics.tick();
      const raw = await redis().get(rkey(KEYS.proxyMetrics.key(h.experiment.id)));
      const snap = ProxyMetricsSchema.parse(JSON.parse(raw!));
      // The harness's reporting period is one hour, so per-second rates are counts / 3600.
      expect(Math.round(snap.requestsPerS * 3600)).toBe(4);
      expect(Math.round(snap.errorsPerS * 3600)).toBe(1);
      expect(snap.latencyP50Ms).not.toBeNull();
      expect(snap.policyVersion).toBe(2);
      await until(() => messages.length > 0, "a metrics message");
      expect(JSON.parse(messages.at(-1)!).points.map((p: { name: string }) => p.name)).toContain(
        "proxy.requests_per_s",
      );
      for (let i = 0; i < 10; i++) await h.proxy.metrics.tick();
      const points = await db().metricPoint.findMany({
        where: { experimentId: h.experiment.id, name: "proxy.requests_per_s" },
      });
      expect(points.length).toBeGreaterThan(0);
    } finally {
      await unsubscribe();
    }
  });
});

describe("external trainer", () => {
  it("forwards a live run's traffic to the rollout URL the run reported", async () => {
    const r = await harness();
    const rollout = await startFakeUpstream({ model: "slime-router" });
    try {
      const run = await startRun(await adminPrincipal(), r.experiment.id);
      await db().run.update({ where: { id: run.id }, data: { rolloutUrl: rollout.url } });
      const res = await r.client.chat.completions.create({
        model: "x",
        messages: [{ role: "user", content: "to the rollout engine" }],
      });
      expect(res.choices[0]!.message.content).toBe("echo: to the rollout engine");
      expect(rollout.requests).toHaveLength(1);
      expect(r.fake.requests).toHaveLength(0);
      // The configured upstream's key is not sent to an address the trainer reported.
      expect(rollout.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      await r.close();
      await rollout.close();
    }
  });

  it("keeps the configured API key when the rollout URL is on the configured server", async () => {
    const r = await harness();
    try {
      const run = await startRun(await adminPrincipal(), r.experiment.id);
      await db().run.update({ where: { id: run.id }, data: { rolloutUrl: r.fake.url } });
      await r.client.chat.completions.create({ model: "x", messages: [{ role: "user", content: "same server" }] });
      expect(r.fake.requests.at(-1)!.headers.authorization).toBe("Bearer upstream-secret");
    } finally {
      await r.close();
    }
  });
});

describe("embedded policy", () => {
  const config = { vocabSize: VOCAB_SIZE, ctx: 64, nLayer: 1, nEmbd: 16, nHead: 2 };
  let dir = "";
  beforeAll(async () => {
    await initBackend();
    dir = await tempDataDir();
    await saveCheckpoint(path.join(dir, "v0"), createModel(config, 11), { version: 0, step: 0 });
    await saveCheckpoint(path.join(dir, "v1"), createModel(config, 12), { version: 1, step: 1 });
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  it("serves through the proxy with the engine's exact token ids and log-probs, and hot-swaps versions", async () => {
    const experiment = await createExperiment(await adminPrincipal(), {
      name: uniq("emb"),
      slug: uniq("emb"),
      description: "",
      config: ExperimentConfigSchema.parse({
        policy: { kind: "embedded", checkpoint: path.join(dir, "v0") },
        serving: { maxTokens: 12 },
      }),
    });
    const key = await makeKey(["proxy"], experiment.id);
    const proxy = await startProxy({
      port: 0,
      host: "127.0.0.1",
      dataDir: await tempDataDir(),
      metricsIntervalMs: 3_600_000,
    });
    const client = new OpenAI({ apiKey: key, baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    const reference = new EmbeddedEngine();
    try {
      const messages = [{ role: "user" as const, content: "hello there" }];
      const a = await client.chat.completions
        .create({
          model: "x",
          messages,
          seed: 5,
          temperature: 1,
        } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming)
        .withResponse();
      const streamed = await client.chat.completions
        .create({
          model: "x",
          messages,
          seed: 5,
          temperature: 1,
          stream: true,
        } as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming)
        .withResponse();
      let text = "";
      const models = new Set<string>();
      for await (const c of streamed.data) {
        text += c.choices[0]?.delta.content ?? "";
        models.add(c.model);
      }
      // Responses name the experiment the client asked for, not the backend kind ("embedded").
      expect(a.data.model).toBe(experiment.slug);
      expect([...models]).toEqual([experiment.slug]);

      await reference.load(path.join(dir, "v0"), 0);
      const expected = await reference.chat(messages, { maxTokens: 12, seed: 5, temperature: 1 });
      expect(a.data.choices[0]!.message.content).toBe(expected.text);
      expect(text).toBe(expected.text);
      await proxy.writer.drain();
      for (const r of [a, streamed]) {
        const turn = await db().turn.findUniqueOrThrow({ where: { id: r.response.headers.get("x-turn-id")! } });
        expect(turn.tokenIds).toEqual(expected.tokenIds);
        expect(turn.logprobs.map((x) => x.toFixed(6))).toEqual(expected.logprobs.map((x) => x.toFixed(6)));
        expect(turn.completionTokens).toBe(expected.tokenIds.length);
        expect(turn.policyVersion).toBe(0);
      }

      await activate(experiment.id, 1, path.join(dir, "v1"));
      await until(
        () => proxy.experiments.get(experiment.id)?.policyVersion === 1,
        "the embedded engine to load version 1",
      );
      const b = await client.chat.completions
        .create({
          model: "x",
          messages,
          seed: 5,
          temperature: 1,
        } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming)
        .withResponse();
      expect(b.response.headers.get("x-policy-version")).toBe("1");
      await reference.swap(path.join(dir, "v1"), 1);
      expect(b.data.choices[0]!.message.content).toBe(
        (await reference.chat(messages, { maxTokens: 12, seed: 5, temperature: 1 })).text,
      );
    } finally {
      reference.dispose();
      await proxy.close();
    }
  });
});
