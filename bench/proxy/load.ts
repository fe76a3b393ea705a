// A closed-loop load generator on node:http keep-alive sockets: `concurrency` workers each send the next
// request as soon as the previous answer (the whole body, or the whole SSE stream) has arrived.
import http from "node:http";

export interface LoadResult {
  /** Every request sent, warm-up included. */
  sent: number;
  requests: number;
  errors: number;
  seconds: number;
  latenciesMs: number[];
}

export interface Target {
  url: string;
  headers: Record<string, string>;
}

export function request(agent: http.Agent, target: Target, payload: string, extraHeaders: Record<string, string> = {}): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  const u = new URL(target.url);
  return new Promise((resolve, reject) => {
    const r = http.request(
      { hostname: u.hostname, port: u.port, path: u.pathname, method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...target.headers, ...extraHeaders } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        res.on("error", reject);
      },
    );
    r.on("error", reject);
    r.end(payload);
  });
}

export async function runLoad(opts: { target: Target; concurrency: number; seconds: number; warmupSeconds?: number; body: (worker: number, i: number) => string; headers?: (worker: number) => Record<string, string> }): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const latencies: number[] = [];
  let requests = 0;
  let errors = 0;
  let sent = 0;
  const warmupEnd = Date.now() + (opts.warmupSeconds ?? 1) * 1000;
  const end = warmupEnd + opts.seconds * 1000;
  let measuredStart = 0;
  const worker = async (w: number) => {
    const extra = opts.headers?.(w) ?? {};
    for (let i = 0; Date.now() < end; i++) {
      const t0 = process.hrtime.bigint();
      const res = await request(agent, opts.target, opts.body(w, i), extra).catch(() => ({ status: 0, body: "", headers: {} }));
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      sent++;
      if (Date.now() < warmupEnd) continue;
      measuredStart ||= Date.now();
      requests++;
      if (res.status !== 200) errors++;
      latencies.push(ms);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, (_, w) => worker(w)));
  agent.destroy();
  return { sent, requests, errors, seconds: (Date.now() - (measuredStart || warmupEnd)) / 1000, latenciesMs: latencies };
}

export function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
