// Several experiments on the same embedded base checkpoint (the three demo experiments) each get their own
// engine in the proxy: a new version of one never changes what another serves.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import OpenAI from "openai";
import { db } from "../../../server/platform/db/client";
import { startProxy, type ProxyServer } from "../../../server/proxy/server";
import { makeExperiment, makeKey } from "../../helpers/fixtures";
import { tempDataDir } from "../proxy/setup";
import { makeBaseCheckpoint } from "../../../bench/lib/baseCheckpoint";
import { isolateDataDir } from "../../helpers/isolate";

let dataDir = "";
let proxy: ProxyServer;
let client: OpenAI;
let base1 = "";
let base2 = "";

beforeAll(async () => {
  dataDir = await isolateDataDir("sim-isolation");
  base1 = await makeBaseCheckpoint(dataDir, 1);
  base2 = await makeBaseCheckpoint(dataDir, 2);
  proxy = await startProxy({ port: 0, host: "127.0.0.1", dataDir: await tempDataDir(), metricsIntervalMs: 3_600_000 });
  client = new OpenAI({ apiKey: await makeKey(["proxy"]), baseURL: `${proxy.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await proxy.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

async function ask(slug: string) {
  const { data, response } = await client.chat.completions
    .create({ model: slug, messages: [{ role: "user", content: "Hi there" }], temperature: 0, seed: 1, max_tokens: 8 })
    .withResponse();
  return { content: data.choices[0]!.message.content, version: response.headers.get("x-policy-version") };
}

describe("embedded upstreams per experiment", () => {
  it("a version swap in one experiment leaves another on the same base checkpoint untouched", async () => {
    const a = await makeExperiment({ policy: { kind: "embedded", checkpoint: base1 } });
    const b = await makeExperiment({ policy: { kind: "embedded", checkpoint: base1 } });
    const [slugA, slugB] = await Promise.all(
      [a, b].map(async (e) => (await db().experiment.findUniqueOrThrow({ where: { id: e.id } })).slug),
    );
    await ask(slugA);
    const before = await ask(slugB);
    expect(proxy.experiments.get(a.id)!.upstream).not.toBe(proxy.experiments.get(b.id)!.upstream);

    // A trains to version 1 (other weights): recorded as its ACTIVE version and announced to the proxy.
    await db().policyVersion.create({
      data: { experimentId: a.id, version: 1, status: "ACTIVE", checkpointPath: base2 },
    });
    await proxy.experiments.switchTo(a.id, 1, base2);
    expect((await ask(slugA)).version).toBe("1");
    expect(await ask(slugB)).toEqual(before);
    expect(before.version).toBe("0");
  });
});
