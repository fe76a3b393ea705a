// A stand-in for OpenClaw-RL's environment pool servers (terminal-rl `pool_server`, swe-rl
// `swe_env_pool_server`, gui-rl `env_pool_server`) on 127.0.0.1, built from the protocol fixtures that
// integrations/contracts/extract_pool_protocols.py extracted from the fork (tests/fixtures/pools/*.json):
// - only the fixture's routes exist (anything else: FastAPI's/Flask's 404);
// - a request missing a field the fixture marks required gets the server's 400 `{ok: false, error}`;
// - every answer it sends is checked against the fixture's response shapes for that route and status, and a
//   mismatch is kept in `violations` (tests assert there are none), so the stand-in cannot drift from the
//   real servers.
// The behaviour follows the servers' code: terminal's per-task and per-run caps (429 with the CapacityError
// codes), `request_id` idempotency and idle reaping on allocate; swe's node capacity (500 "All exec nodes are
// full…"); gui's `max_envs` (500 "Pool exhausted: …"); the unknown-lease KeyError texts with 500; terminal's
// close of an unknown lease answering `found: false`, swe's answering ok, gui's answering 500.
// The environment itself is scripted: commands are recorded, and the score is `score(commands)`.
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";

export type Protocol = "terminal" | "swe" | "gui";

interface Shape {
  status: number | null;
  ok?: unknown;
  keys?: string[];
}
interface Fixture {
  header: { repository: string; commit: string };
  routes: Record<string, { method: string; request: Record<string, { required: boolean }>; responses: Shape[] }>;
  capacity_codes: string[];
  capacity_messages: string[];
  unknown_lease_messages: string[];
  lease_id_prefixes: string[];
}

export function poolFixture(protocol: Protocol): Fixture {
  return JSON.parse(readFileSync(join(__dirname, "..", "fixtures", "pools", `${protocol}.json`), "utf8")) as Fixture;
}

/** A 1×1 PNG: the gui pool's screenshots. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

interface Run {
  leaseId: string;
  taskKey: string;
  commands: string[];
  lastUsed: number;
  reset: boolean;
  screenshots: number;
}

export interface EnvPoolOptions {
  protocol: Protocol;
  /** terminal: max_tasks / max_runs_per_task; swe: containers per node; gui: max_envs. */
  maxTasks?: number;
  maxRunsPerTask?: number;
  maxLeases?: number;
  /** terminal's run_idle_ttl (reaped on the next allocate, as the server does). */
  idleTtlMs?: number;
  score?: (commands: string[]) => number;
}

export class EnvPoolServer {
  readonly fixture: Fixture;
  readonly violations: string[] = [];
  readonly requests: { path: string; body: Record<string, unknown> }[] = [];
  private readonly runs = new Map<string, Run>();
  private readonly idempotency = new Map<string, string>();
  private readonly sockets = new Set<Socket>();
  private readonly server: http.Server;
  private dropNext = new Map<string, number>();
  private counter = 0;
  url = "";

  constructor(private readonly opts: EnvPoolOptions) {
    this.fixture = poolFixture(opts.protocol);
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on("connection", (s) => {
      this.sockets.add(s);
      s.on("close", () => this.sockets.delete(s));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The pool dies: the listener closes and open connections are cut. */
  async kill(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** The pool forgets a lease, as its idle reaper or a restart does. */
  forget(poolLeaseId: string): void {
    this.runs.delete(poolLeaseId);
  }

  /** The next `n` answers on `path` are computed but never sent (the connection is cut instead). */
  dropAnswers(path: string, n = 1): void {
    this.dropNext.set(path, n);
  }

  liveLeases(): string[] {
    return [...this.runs.keys()];
  }

  commandsOf(poolLeaseId: string): string[] {
    return this.runs.get(poolLeaseId)?.commands ?? [];
  }

  private unknown(id: unknown): [number, Record<string, unknown>] {
    const text = this.opts.protocol === "terminal" ? "Unknown run_lease_id" : "Unknown lease_id";
    return [500, { ok: false, error: `${text}: ${String(id)}` }];
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0];
    const route = this.fixture.routes[path];
    let raw = "";
    for await (const c of req) raw += c;
    if (!route || route.method !== req.method) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ detail: "Not Found" }));
      return;
    }
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      body = {};
    }
    this.requests.push({ path, body });
    const [status, answer] = this.answer(path, body, route.request);
    this.check(path, status, answer);
    const drop = this.dropNext.get(path) ?? 0;
    if (drop > 0) {
      this.dropNext.set(path, drop - 1);
      req.socket.destroy();
      return;
    }
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(answer));
  }

  /** The answer must fit one of the fixture's shapes for this route and status (keys a subset, ok as given). */
  private check(path: string, status: number, answer: Record<string, unknown>): void {
    const shapes = this.fixture.routes[path].responses.filter((s) => s.status === status && s.keys);
    const fits = shapes.some(
      (s) =>
        Object.keys(answer).every((k) => s.keys!.includes(k)) &&
        (typeof s.ok !== "boolean" || s.ok === answer.ok || !("ok" in answer)),
    );
    if (!fits) this.violations.push(`${path} ${status} ${JSON.stringify(Object.keys(answer))}`);
  }

  private answer(
    path: string,
    body: Record<string, unknown>,
    request: Record<string, { required: boolean }>,
  ): [number, Record<string, unknown>] {
    for (const [field, spec] of Object.entries(request)) {
      if (!spec.required) continue;
      const [outer, inner] = field.split(".");
      const v = inner ? (body[outer] as Record<string, unknown> | undefined)?.[inner] : body[field];
      if (v === undefined || v === null || v === "") return [400, { ok: false, error: `${field} is required` }];
    }
    const p = this.opts.protocol;
    const id = body.lease_id as string | undefined;
    const run = id ? this.runs.get(id) : undefined;
    if (path === "/healthz") return [200, { ok: true }];
    if (path === "/status") return [200, { ok: true, pool: { leases: this.runs.size } }];
    if (path === "/allocate") return this.allocate(body);
    if (path === "/close") {
      if (!run)
        return p === "terminal"
          ? [200, { ok: true, found: false }]
          : p === "swe"
            ? [200, { ok: true }]
            : this.unknown(id);
      this.runs.delete(id!);
      return [200, p === "terminal" ? { ok: true, found: true } : { ok: true }];
    }
    if (!run) return this.unknown(id);
    run.lastUsed = Date.now();
    const score = () => (this.opts.score ?? ((c) => (c.includes("make solved") ? 1 : 0)))(run.commands);
    switch (path) {
      case "/heartbeat":
        return [200, { ok: true }];
      case "/reset": {
        run.reset = true;
        if (p === "terminal") {
          const meta = body.task_meta as Record<string, unknown>;
          return [
            200,
            {
              ok: true,
              user_msg: `Task name:${String(meta.task_name)}\nTask instruction: ${String(meta.instruction)}`,
              tool_schemas: ["shell_exec", "shell_view", "shell_write_to_process", "shell_write_content_to_file"].map(
                (name) => ({ type: "function", function: { name, parameters: { type: "object", properties: {} } } }),
              ),
            },
          ];
        }
        return [200, { ok: true, observation: this.observation(run) }];
      }
      case "/exec_tool": {
        const call = body.tool_call as { name: string; arguments?: { command?: string } };
        if (!run.reset) return [500, { ok: false, error: "env is not initialized; call reset first" }];
        run.commands.push(call.arguments?.command ?? "");
        return [200, { ok: true, observation: `ran: ${call.arguments?.command ?? ""}` }];
      }
      case "/exec":
        run.commands.push(String(body.command));
        return [200, { ok: true, returncode: 0, output: `ran: ${String(body.command)}\n` }];
      case "/diff":
        return [200, { ok: true, returncode: 0, patch: run.commands.map((c) => `+${c}`).join("\n") }];
      case "/evaluate":
        if (p === "swe") {
          const resolved = score() > 0;
          return [200, { ok: true, resolved, returncode: resolved ? 0 : 1, output: "tests ran", apply_returncode: 0 }];
        }
        return [200, { ok: true, score: score() }];
      case "/step":
        run.commands.push(JSON.stringify(body.action));
        run.screenshots++;
        return [
          200,
          { ok: true, observation: this.observation(run), reward: 0, done: body.action === "DONE", info: {} },
        ];
      case "/get_obs":
        return [200, { ok: true, observation: this.observation(run) }];
      default:
        return [200, { ok: true }];
    }
  }

  private observation(run: Run): Record<string, unknown> {
    // Each screenshot differs (the step count rides in a trailing chunk-free byte), so a test can tell them apart.
    const shot = Buffer.concat([PNG, Buffer.from([run.screenshots])]);
    return { screenshot_b64: shot.toString("base64"), accessibility_tree: null, instruction: run.taskKey };
  }

  private allocate(body: Record<string, unknown>): [number, Record<string, unknown>] {
    const p = this.opts.protocol;
    const prefix = this.fixture.lease_id_prefixes[0];
    const newId = () => `${prefix}${(++this.counter).toString(16).padStart(16, "0")}`;
    if (p === "terminal") {
      const taskKey = String(body.task_key);
      // The server reaps idle runs before it allocates.
      const ttl = this.opts.idleTtlMs ?? Infinity;
      for (const [rid, r] of this.runs) if (Date.now() - r.lastUsed > ttl) this.runs.delete(rid);
      const idem = body.request_id ? `${taskKey}\u0000${String(body.request_id)}` : null;
      const cached = idem ? this.idempotency.get(idem) : undefined;
      if (cached && this.runs.has(cached)) return [200, { ok: true, lease_id: cached, reused: true }];
      const tasks = new Set([...this.runs.values()].map((r) => r.taskKey));
      if (!tasks.has(taskKey) && tasks.size >= (this.opts.maxTasks ?? 16))
        return [
          429,
          {
            ok: false,
            error: `Worker at task capacity: ${tasks.size}/${this.opts.maxTasks}`,
            code: "TASK_SLOTS_EXHAUSTED",
          },
        ];
      const runsOfTask = [...this.runs.values()].filter((r) => r.taskKey === taskKey).length;
      if (runsOfTask >= (this.opts.maxRunsPerTask ?? 8))
        return [
          429,
          {
            ok: false,
            error: `Task ${taskKey} at run capacity: ${runsOfTask}/${this.opts.maxRunsPerTask}`,
            code: "RUN_SLOTS_EXHAUSTED",
          },
        ];
      const id = newId();
      this.runs.set(id, this.newRun(id, taskKey));
      if (idem) this.idempotency.set(idem, id);
      return [200, { ok: true, lease_id: id, reused: false }];
    }
    const max = this.opts.maxLeases ?? 16;
    if (this.runs.size >= max)
      return [
        500,
        {
          ok: false,
          error:
            p === "swe"
              ? `${this.fixture.capacity_messages[0]}[('${this.url}', ${this.runs.size}, True)]`
              : `${this.fixture.capacity_messages[0]} ${this.runs.size}/${max}`,
        },
      ];
    const id = newId();
    const key = p === "swe" ? String(body.instance_id ?? "") : String(body.episode_id ?? "");
    this.runs.set(id, this.newRun(id, key));
    return p === "swe"
      ? [200, { ok: true, lease_id: id, container_id: `c${this.counter}`, node_url: this.url }]
      : [200, { ok: true, lease_id: id, env_id: `env-${this.counter}`, reused: false }];
  }

  private newRun(leaseId: string, taskKey: string): Run {
    return { leaseId, taskKey, commands: [], lastUsed: Date.now(), reset: false, screenshots: 0 };
  }
}
