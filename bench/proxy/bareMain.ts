// The benchmark's baseline: a bare Node pass-through proxy in its own process. It buffers the request
// body, forwards it on keep-alive sockets to the same fake upstream the proxy uses, and pipes the answer
// back — no auth, no parsing, no recording. What any Node proxy costs; our proxy is reported against it.
//   tsx bench/proxy/bareMain.ts <upstream base url>
import http from "node:http";
import type { AddressInfo } from "node:net";

const upstream = new URL(process.argv[2]!);
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
const server = http.createServer({ keepAliveTimeout: 65_000, noDelay: true }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks);
    const path = `${upstream.pathname.replace(/\/$/, "")}${req.url ?? "/"}`;
    const up = http.request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        path,
        method: req.method,
        agent,
        headers: { "content-type": "application/json", "content-length": body.length },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on("error", () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    up.end(body);
  });
});
server.listen(0, "127.0.0.1", () =>
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
);
process.on("SIGTERM", () => (server.closeAllConnections(), server.close(() => process.exit(0))));
