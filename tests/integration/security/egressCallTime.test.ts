// Egress is checked when the call is made, not only when the URL was saved: an experiment whose policy URL was
// allowed at save (here `localhost`, allow-listed then) and whose name now leads to a loopback address the policy
// refuses — the rebinding case: same URL, another answer — is never connected to through the proxy's real
// /v1/chat/completions, and the refusal carries nothing of the internal service.
import { afterEach, describe, expect, it } from "vitest";
import { startFakeUpstream } from "../../../bench/lib/fakeOpenaiUpstream";
import { startProxy } from "../../../server/proxy/server";
import { makeExperiment, makeKey, uniq } from "../../helpers/fixtures";
import { adminPrincipal, post, tempDataDir } from "../proxy/setup";

const saved = process.env.UPSTREAM_ALLOWLIST;
afterEach(() => {
  process.env.UPSTREAM_ALLOWLIST = saved;
});

describe("egress at call time through the proxy", () => {
  it("refuses a saved upstream whose name resolves to a refused address when the request is made", async () => {
    const fake = await startFakeUpstream();
    const url = fake.url.replace("127.0.0.1", "localhost");
    process.env.UPSTREAM_ALLOWLIST = "127.0.0.1,localhost";
    const experiment = await makeExperiment(
      { policy: { kind: "openai", baseUrl: url, model: fake.model, apiKey: "k" } },
      { by: await adminPrincipal(), name: uniq("egress") },
    );
    const key = await makeKey(["proxy"], experiment.id);
    // The operator's allow-list no longer covers loopback: what the name resolves to now is refused.
    process.env.UPSTREAM_ALLOWLIST = "";
    const proxy = await startProxy({
      port: 0,
      host: "127.0.0.1",
      dataDir: await tempDataDir(),
      metricsIntervalMs: 3_600_000,
      redis: false,
      log: () => {},
    });
    try {
      const before = fake.requests.length;
      const res = await post(
        `${proxy.url}/v1/chat/completions`,
        { model: "x", messages: [{ role: "user", content: "hello" }] },
        { authorization: `Bearer ${key}`, "x-session-id": uniq("s") },
      );
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(fake.requests.length).toBe(before);
      expect(JSON.stringify(res.json)).not.toContain("echo:");
      // Not vacuous: with loopback allowed again the same request reaches the same upstream.
      process.env.UPSTREAM_ALLOWLIST = "127.0.0.1,localhost";
      const ok = await post(
        `${proxy.url}/v1/chat/completions`,
        { model: "x", messages: [{ role: "user", content: "hello" }] },
        { authorization: `Bearer ${key}`, "x-session-id": uniq("s") },
      );
      expect(ok.status).toBe(200);
      expect(fake.requests.length).toBe(before + 1);
    } finally {
      await proxy.close();
      await fake.close();
    }
  });
});
