// The one way out of a harness's sandbox: the sandbox has no network (its own empty network namespace), and
// a unix socket bound into it leads to this bridge on the host, which forwards HTTP to the recording proxy
// and nowhere else. Inside, a small forwarder (FORWARDER, run by the sandbox's own node) listens on
// 127.0.0.1:<port> and pipes each connection to the socket, so the agent's OpenAI base URL is a plain
// http://127.0.0.1:<port>/v1.
//
// The bridge binds the traffic to the episode by construction, never by guessing: it sets `X-Session-Id`
// to the episode attempt's session id (and `X-Turn-Type: main`) on every request, and replaces whatever
// key the agent sent with the episode's real proxy key, which therefore never enters the sandbox.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";

/** Run inside the sandbox as `node <file> <port> <socket>`: 127.0.0.1:<port> ↔ the bridge's socket. */
export const FORWARDER = `import net from "node:net";
const [port, sock] = process.argv.slice(2);
net
  .createServer((c) => {
    const u = net.connect(sock);
    c.pipe(u).pipe(c);
    c.on("error", () => u.destroy());
    u.on("error", () => c.destroy());
  })
  .listen(Number(port), "127.0.0.1");
`;

/** Where the socket appears inside the sandbox (/tmp is the sandbox's own writable tmpfs). */
export const SANDBOX_SOCKET = "/tmp/ocrl-proxy.sock";

/** Headers the agent may not set: the bridge owns the session binding and the key. */
const OWNED = new Set(["authorization", "x-session-id", "x-turn-type", "x-session-done", "host", "connection"]);

export interface BridgeOptions {
  /** The recording proxy's base, e.g. http://127.0.0.1:30000 (the agent's paths, /v1/…, are appended). */
  proxyUrl: string;
  /** A proxy-scope key bound to the experiment. */
  apiKey: string;
  /** The X-Session-Id every forwarded request carries: the episode attempt's session. */
  sessionId: string;
  /** The harness's turn budget: later requests get 429 without reaching the proxy. */
  maxRequests: number;
}

export class ProxyBridge {
  readonly socketPath: string;
  private readonly dir: string;
  private readonly server: http.Server;
  /** Requests forwarded, and refused over the turn budget, for the episode's record. */
  requests = 0;
  refused = 0;

  constructor(private readonly opts: BridgeOptions) {
    this.dir = mkdtempSync(path.join(tmpdir(), "ocrl-bridge-"));
    // Lease uids must reach the socket: search on the folder, read/write on the socket.
    chmodSync(this.dir, 0o711);
    this.socketPath = path.join(this.dir, "proxy.sock");
    this.server = http.createServer((req, res) => this.forward(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.socketPath, resolve);
    });
    chmodSync(this.socketPath, 0o666);
    return this;
  }

  /** The `sockets` entry of the harness's exec. */
  get mount(): { at: string; host: string } {
    return { at: SANDBOX_SOCKET, host: this.socketPath };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.requests >= this.opts.maxRequests) {
      this.refused++;
      res.writeHead(429, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `turn budget of ${this.opts.maxRequests} calls spent` } }));
      return;
    }
    this.requests++;
    // Only a path is taken from the agent: an absolute URL (a forward-proxy request) cannot change the host.
    const p = req.url ?? "/";
    if (!p.startsWith("/")) {
      res.writeHead(400, { "content-type": "application/json" }).end('{"error":{"message":"paths only"}}');
      return;
    }
    const target = new URL(new URL(this.opts.proxyUrl).origin + p);
    const headers: http.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(req.headers)) if (!OWNED.has(k)) headers[k] = v;
    headers.authorization = `Bearer ${this.opts.apiKey}`;
    headers["x-session-id"] = this.opts.sessionId;
    headers["x-turn-type"] = "main";
    const up = http.request(target, { method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on("error", (e) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `proxy unreachable: ${e.message}` } }));
    });
    req.pipe(up);
  }
}
