// A harness run in the real bubblewrap sandbox: a scripted stand-in agent (a black box to us: it only reads
// the variables the harness gives it) calls its OpenAI base URL, which leads through the in-sandbox
// forwarder and the episode's bridge to a stand-in of the recording proxy. Shown: every call carries the
// episode's session id and real key (the sandbox only ever held a placeholder), the turn budget is enforced,
// nothing else is reachable from the sandbox, and the task's verifier scores what the agent left in /app.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProxyBridge } from "../../../server/environments/harness/bridge";
import { harnessSchema, KEY_PLACEHOLDER, launchPlan } from "../../../server/environments/harness/schema";
import { LocalBwrapProvider } from "../../../server/environments/sandbox/bwrap";
import { textFile } from "../../../server/environments/sandbox/files";
import { sandboxLimitsSchema } from "../../../server/environments/sandbox/limits";

const root = mkdtempSync(path.join(tmpdir(), "ocrl-harness-test-"));
const provider = new LocalBwrapProvider({
  root,
  bwrap: "bwrap",
  uidBase: 230_000 + (process.pid % 1000) * 8,
  uidCount: 8,
});
const availability = await provider.available();

// The stand-in agent: asks its policy three times, keeps the first answer in /app, and reports what it saw.
const AGENT = `import { readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
const instruction = readFileSync(process.argv[2], "utf8");
const base = process.env.OPENAI_BASE_URL;
const statuses = [];
let answer = "";
for (let i = 0; i < 3; i++) {
  const r = await fetch(base + "/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer " + process.env.OPENAI_API_KEY, "x-session-id": "agent-chosen" },
    body: JSON.stringify({ model: process.env.OPENAI_MODEL, messages: [{ role: "user", content: instruction }] }),
  });
  statuses.push(r.status);
  const j = await r.json();
  if (i === 0) answer = j.choices[0].message.content;
}
const tryConnect = (host, port) =>
  new Promise((res) => {
    const s = net.connect({ host, port, timeout: 2000 });
    s.on("connect", () => { s.destroy(); res("connected"); });
    s.on("error", (e) => res(e.code));
    s.on("timeout", () => { s.destroy(); res("timeout"); });
  });
const egress = [await tryConnect("127.0.0.1", Number(process.env.HOST_PROXY_PORT)), await tryConnect("1.1.1.1", 53)];
writeFileSync("/app/answer.txt", answer);
writeFileSync("/app/report.json", JSON.stringify({ statuses, egress, key: process.env.OPENAI_API_KEY }));
`;

const harness = harnessSchema.parse({
  name: "scripted",
  command: "node /tmp/harness/agent.mjs {instruction_file}",
  instruction: "file",
  env: { baseUrl: ["OPENAI_BASE_URL"], apiKey: ["OPENAI_API_KEY"], model: ["OPENAI_MODEL"] },
  files: [{ path: "agent.mjs", template: AGENT }],
  budget: { wallSeconds: 60, turns: 2, maxTokens: 256 },
});

const seen: { headers: http.IncomingHttpHeaders; body: { model: string; messages: { content: string }[] } }[] = [];
const proxy = http.createServer((req, res) => {
  let raw = "";
  req.on("data", (c: Buffer) => (raw += c.toString()));
  req.on("end", () => {
    seen.push({ headers: req.headers, body: JSON.parse(raw) as (typeof seen)[number]["body"] });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: "42" } }] }));
  });
});
let proxyUrl = "";
let proxyPort = 0;

beforeAll(async () => {
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  proxyPort = (proxy.address() as AddressInfo).port;
  proxyUrl = `http://127.0.0.1:${proxyPort}`;
});
afterAll(async () => {
  for (const l of provider.list()) await provider.close(l.id);
  await new Promise<void>((r) => proxy.close(() => r()));
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!availability.ok)(
  `harness in local-bwrap${availability.ok ? "" : ` (skipped: ${availability.reason})`}`,
  () => {
    it("reaches the proxy only through the episode's bridge, bound to the episode, within its budget", async () => {
      const bridge = await new ProxyBridge({
        proxyUrl,
        apiKey: "ocrl_real_episode_key",
        sessionId: "ep-harness-1",
        maxRequests: harness.budget.turns,
      }).start();
      // Node's fetch instantiates WebAssembly, which reserves ~10 GiB of address space: RLIMIT_AS must allow it.
      const limits = sandboxLimitsSchema.parse({ memoryMb: 32_768, pids: 128, wallSeconds: 60 });
      const lease = await provider.allocate({ limits, network: "none" });
      try {
        await provider.reset(lease.id, []);
        const plan = launchPlan(harness, { instruction: "What is 6 times 7?", model: "policy" });
        const run = await provider.exec(lease.id, plan.command, {
          env: { ...plan.env, HOST_PROXY_PORT: String(proxyPort) },
          sockets: [bridge.mount],
        });
        expect(run.stderr).toBe("");
        expect(run.exitCode).toBe(0);

        // Two calls reached the proxy, both bound to the episode with its real key, whatever the agent sent.
        expect(seen).toHaveLength(2);
        for (const s of seen) {
          expect(s.headers["x-session-id"]).toBe("ep-harness-1");
          expect(s.headers["x-turn-type"]).toBe("main");
          expect(s.headers.authorization).toBe("Bearer ocrl_real_episode_key");
          expect(s.body).toMatchObject({ model: "policy", messages: [{ content: "What is 6 times 7?" }] });
        }
        const report = await provider.exec(lease.id, "cat /app/report.json");
        const r = JSON.parse(report.stdout) as { statuses: number[]; egress: string[]; key: string };
        // The third call is over the turn budget.
        expect(r.statuses).toEqual([200, 200, 429]);
        // The host's loopback (where the proxy listens) and the internet are unreachable from the sandbox.
        expect(r.egress[0]).toBe("ECONNREFUSED");
        expect(r.egress[1]).not.toBe("connected");
        expect(r.key).toBe(KEY_PLACEHOLDER);

        const verdict = await provider.evaluate(lease.id, {
          files: [
            textFile(
              "test.sh",
              'test "$(cat /app/answer.txt)" = 42 && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt',
            ),
          ],
          command: "bash /tests/test.sh",
          timeoutSeconds: 30,
        });
        expect(verdict.reward).toBe(1);
      } finally {
        await provider.close(lease.id);
        await bridge.close();
      }
    });
  },
);
