// The proxy benchmark's accounting (bench/proxy/load.ts): only 2xx answers count as served — throughput,
// latencies and "what must be stored" — and every other status is counted by status, never as throughput.
// Against a real HTTP server that answers 200 and 429 in a fixed pattern.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failures, runLoad, throughput } from "../../../bench/proxy/load";

let server: http.Server;
let url: string;
let answered = { ok: 0, limited: 0 };

beforeAll(async () => {
  let n = 0;
  server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      // Two of every three requests are refused, as a rate limiter would.
      if (n++ % 3 === 0) {
        answered.ok++;
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      } else {
        answered.limited++;
        res.writeHead(429, { "content-type": "application/json" }).end('{"error":{}}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("bench/proxy load accounting", () => {
  it("counts only 2xx as served and must-be-stored; 429s are reported by status", async () => {
    answered = { ok: 0, limited: 0 };
    const r = await runLoad({
      target: { url, headers: {} },
      concurrency: 4,
      seconds: 0.5,
      warmupSeconds: 0.2,
      body: () => "{}",
    });
    expect(r.sent).toBe(answered.ok + answered.limited);
    expect(r.okAll).toBe(answered.ok); // what the proxy must have stored: every 2xx, warm-up included
    expect(r.ok).toBe(r.statuses[200]);
    expect(r.requests).toBe((r.statuses[200] ?? 0) + (r.statuses[429] ?? 0));
    expect(r.statuses[429]).toBeGreaterThan(r.ok);
    expect(r.latenciesMs).toHaveLength(r.ok);
    expect(throughput(r)).toBeCloseTo(r.ok / r.seconds, 6);
    expect(failures(r)).toBe(`429×${r.statuses[429]}`);
  });
});
