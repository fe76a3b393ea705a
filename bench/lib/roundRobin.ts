// A round-robin HTTP balancer on loopback, as an ordinary load balancer in front of several proxy replicas:
// every request (not every connection) goes to the next backend, with no stickiness, so consecutive requests
// of one conversation land on different replicas. A backend that refuses the connection (stopped, killed) is
// skipped for that request — the request had not reached it — as a balancer's passive health check does.
// Responses, SSE streams included, are piped through as they arrive.
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RoundRobin {
  url: string;
  /** Requests sent to each backend (by position). */
  counts: number[];
  setBackends(urls: string[]): void;
  close(): Promise<void>;
}

/** Errors after which the backend cannot have seen the request: refused, or a kept-alive socket it had closed (Node's documented retry case). */
const unsent = (err: unknown, reused: boolean) => {
  const code = (err as { code?: string }).code ?? "";
  return code === "ECONNREFUSED" || (reused && (code === "ECONNRESET" || code === "EPIPE"));
};

export async function startRoundRobin(backends: string[]): Promise<RoundRobin> {
  let targets = backends.map((u) => new URL(u));
  let next = 0;
  const counts = targets.map(() => 0);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

  const forward = (req: IncomingMessage, body: Buffer, res: ServerResponse, tries: number) => {
    const i = next++ % targets.length;
    const t = targets[i]!;
    let answered = false;
    const up = http.request(
      { hostname: t.hostname, port: t.port, path: req.url, method: req.method, headers: req.headers, agent },
      (r) => {
        answered = true;
        counts[i] = (counts[i] ?? 0) + 1;
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
        r.on("error", () => res.destroy());
      },
    );
    up.on("error", (err) => {
      if (!answered && unsent(err, up.reusedSocket) && tries + 1 < targets.length * 2)
        return forward(req, body, res, tries + 1);
      if (!res.headersSent)
        res
          .writeHead(502, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { message: `balancer: ${(err as Error).message}` } }));
      else res.destroy();
    });
    up.end(body);
  };

  const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => forward(req, Buffer.concat(chunks), res, 0));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    setBackends(urls) {
      targets = urls.map((u) => new URL(u));
      counts.length = 0;
      counts.push(...targets.map(() => 0));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      agent.destroy();
    },
  };
}
