// Shared setup of the proxy integration tests: a fake upstream, an experiment whose policy points at it,
// a proxy started in-process on an ephemeral port, and the official `openai` client aimed at the proxy.
import { mkdir, mkdtemp } from "node:fs/promises";
import path from "node:path";
import OpenAI from "openai";
import type { ExperimentConfigInput } from "../../../server/config/experimentConfig";
import { startProxy, type ProxyOptions, type ProxyServer } from "../../../server/proxy/server";
import { env } from "../../../server/platform/env";
import type { Principal } from "../../../server/access/principal";
import { startFakeUpstream, type FakeUpstream, type FakeUpstreamOptions } from "../../../bench/lib/fakeOpenaiUpstream";
import { makeExperiment, makeKey, makeUser, uniq } from "../../helpers/fixtures";

export async function adminPrincipal(): Promise<Principal> {
  const u = await makeUser("ADMIN");
  return { kind: "user", userId: u.id, email: u.email, role: "ADMIN" };
}

/** An experiment whose policy is the fake upstream, created through the service by an admin user. */
export async function proxiedExperiment(
  fake: FakeUpstream,
  serving: NonNullable<ExperimentConfigInput["serving"]> = {},
) {
  const config = {
    policy: { kind: "openai" as const, baseUrl: fake.url, model: fake.model, apiKey: "upstream-secret" },
    serving,
  };
  return makeExperiment(config, { by: await adminPrincipal(), name: uniq("proxy") });
}

export async function tempDataDir(): Promise<string> {
  const root = path.resolve(env().DATA_DIR);
  await mkdir(root, { recursive: true });
  return mkdtemp(path.join(root, "proxy-"));
}

export interface Harness {
  fake: FakeUpstream;
  experiment: Awaited<ReturnType<typeof proxiedExperiment>>;
  key: string;
  proxy: ProxyServer;
  client: OpenAI;
  dataDir: string;
  close(): Promise<void>;
}

export async function harness(
  opts: {
    fake?: FakeUpstreamOptions;
    serving?: NonNullable<ExperimentConfigInput["serving"]>;
    proxy?: ProxyOptions;
  } = {},
): Promise<Harness> {
  const fake = await startFakeUpstream(opts.fake);
  const experiment = await proxiedExperiment(fake, opts.serving);
  const key = await makeKey(["proxy"], experiment.id);
  const dataDir = opts.proxy?.dataDir ?? (await tempDataDir());
  const proxy = await startProxy({ port: 0, host: "127.0.0.1", dataDir, metricsIntervalMs: 3_600_000, ...opts.proxy });
  const client = new OpenAI({ apiKey: key, baseURL: `${proxy.url}/v1`, maxRetries: 0 });
  return {
    fake,
    experiment,
    key,
    proxy,
    client,
    dataDir,
    async close() {
      await proxy.close();
      await fake.close();
    },
  };
}

/** Raw HTTP against the proxy, for what the OpenAI client would not send (bad JSON, odd headers). */
export async function post(url: string, body: string | object, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return {
    status: res.status,
    headers: res.headers,
    json: json as { error?: { message: string; type: string; param: string | null; code: string | null } } & Record<
      string,
      unknown
    >,
  };
}
