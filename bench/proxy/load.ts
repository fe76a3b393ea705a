// A closed-loop load generator on node:http keep-alive sockets: `concurrency` workers each send the next
// request as soon as the previous answer (the whole body, or the whole SSE stream) has arrived.
// Only 2xx answers count as served: throughput and latencies are of 2xx answers; every other status (a
// 429 from a rate limit, a 5xx) is counted by status and reported, never as throughput.
import http from "node:http";

export interface LoadResult {
  /** Every request sent, warm-up included. */
  sent: number;
  /** 2xx answers, warm-up included: what the proxy must have stored. */
  okAll: number;
  /** Requests answered in the measured window, any status. */
  requests: number;
  /** 2xx answers in the measured window. */
  ok: number;
  /** Answers in the measured window by status (0: no answer, a connection error). */
  statuses: Record<number, number>;
  seconds: number;
  /** Latencies of the measured window's 2xx answers. */
  latenciesMs: number[];
}

export interface Target {
  url: string;
  headers: Record<string, string>;
}

export const is2xx = (status: number) => status >= 200 && status < 300;

export function request(
  agent: http.Agent,
  target: Target,
  payload: string,
  extraHeaders: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  const u = new URL(target.url);
  return new Promise((resolve, reject) => {
    const r = http.request(
      {
        hostname: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
          ...target.headers,
          ...extraHeaders,
        },
      },
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

export async function runLoad(opts: {
  target: Target;
  concurrency: number;
  seconds: number;
  warmupSeconds?: number;
  body: (worker: number, i: number) => string;
  headers?: (worker: number) => Record<string, string>;
}): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency });
  const out: LoadResult = { sent: 0, okAll: 0, requests: 0, ok: 0, statuses: {}, seconds: 0, latenciesMs: [] };
  const warmupEnd = Date.now() + (opts.warmupSeconds ?? 1) * 1000;
  const end = warmupEnd + opts.seconds * 1000;
  let measuredStart = 0;
  const worker = async (w: number) => {
    const extra = opts.headers?.(w) ?? {};
    for (let i = 0; Date.now() < end; i++) {
      const t0 = process.hrtime.bigint();
      const res = await request(agent, opts.target, opts.body(w, i), extra).catch(() => ({
        status: 0,
        body: "",
        headers: {},
      }));
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      out.sent++;
      if (is2xx(res.status)) out.okAll++;
      if (Date.now() < warmupEnd) continue;
      measuredStart ||= Date.now();
      out.requests++;
      out.statuses[res.status] = (out.statuses[res.status] ?? 0) + 1;
      if (!is2xx(res.status)) continue;
      out.ok++;
      out.latenciesMs.push(ms);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, (_, w) => worker(w)));
  agent.destroy();
  out.seconds = (Date.now() - (measuredStart || warmupEnd)) / 1000;
  return out;
}

/** 2xx answers per second in the measured window. */
export const throughput = (r: LoadResult) => (r.seconds > 0 ? r.ok / r.seconds : 0);

/** Statuses other than 2xx, e.g. "429×12 0×1" ("" when none). */
export const failures = (r: LoadResult) =>
  Object.entries(r.statuses)
    .filter(([s]) => !is2xx(Number(s)))
    .map(([s, n]) => `${s}×${n}`)
    .join(" ");

export function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
