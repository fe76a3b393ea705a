// `remote-pool`: episodes run in environments that live on other machines behind the fork's own pool servers
// (terminal-rl `pool_server`, swe-rl `swe_env_pool_server`, gui-rl `env_pool_server`), spoken to unchanged,
// so a team's workers plug in as they are. The task lives on the pool's side (terminal: DATASET_DIR/task_path;
// swe: the instance image; gui: the task config), and so does its verifier: what comes back is a score.
//
// Lease life: allocate (least-loaded pool first; a full or unreachable pool is skipped) → reset → step* →
// evaluate (once: a reward is counted at most once per lease) → close, with a heartbeat every `heartbeatMs`
// while the lease is open (the pools reap leases idle past their TTL). A lease the pool no longer knows (reaped,
// or the pool restarted) or a pool that stops answering marks the lease `lost`: every later operation fails
// with `lease_lost`, and the episode fails rather than being scored.
import { randomBytes } from "node:crypto";
import { LeaseError } from "../provider";
import { PoolFailure, poolPost } from "./client";
import { answers, type PoolProtocol } from "./wire";

export type RemoteLeaseState = "allocated" | "ready" | "evaluated" | "closed" | "lost";

export interface RemoteTask {
  key: string;
  instruction: string;
  /** terminal: the `task_meta` the pool resets with (it needs `task_path`, relative to the pool's DATASET_DIR). */
  meta?: Record<string, unknown>;
  /** swe: the instance's image and the eval script its `/evaluate` runs after applying the agent's diff. */
  image?: string;
  evalScript?: string;
  /** gui: the task config `DesktopEnv.reset` takes. */
  config?: Record<string, unknown>;
}

export type RemoteAction =
  | { kind: "tool"; name: string; arguments: Record<string, unknown> }
  | { kind: "command"; command: string; timeoutSeconds?: number; env?: Record<string, string> }
  | { kind: "gui"; action: unknown; sleepAfterSeconds?: number };

export interface RemoteObservation {
  text: string;
  /** gui: the screenshot after the step (PNG bytes), to be stored with the episode. */
  screenshot: Buffer | null;
  exitCode: number | null;
  done: boolean;
}

export interface RemoteReset {
  /** The first user message: the pool's own (terminal) or the task's instruction. */
  instruction: string;
  /** terminal: the OpenAI tool schemas the pool's toolkit offers. */
  tools: unknown[];
  observation: RemoteObservation | null;
}

export interface RemoteEvaluation {
  reward: number;
  /** What the pool said beyond the score (swe: resolved, the test output). */
  detail: Record<string, unknown>;
}

export interface RemoteLease {
  id: string;
  protocol: PoolProtocol;
  pool: string;
  poolLeaseId: string;
  taskKey: string;
  state: RemoteLeaseState;
  createdAt: string;
  lastHeartbeatAt: string | null;
  lostReason: string | null;
  steps: number;
  reward: number | null;
}

export interface RemotePoolOptions {
  protocol: PoolProtocol;
  /** The pools' base URLs (the fork's WORKER_URLS / ENV_SERVER_URL). */
  urls: string[];
  /** Well under the pools' idle TTL (terminal's WORKER_RUN_IDLE_TTL defaults to 600 s). */
  heartbeatMs?: number;
  /** Consecutive failed heartbeats to a pool that does not answer before the lease counts as lost. */
  heartbeatFailures?: number;
  /** Per request; a step's own timeout is added to it. */
  requestTimeoutMs?: number;
  /** terminal: where the pool writes this run's logs (`run_ctx.log_dir`, a path on the pool's machine). */
  logRoot?: string;
}

export interface RemoteAllocateOptions {
  task: RemoteTask;
  /** Binds the pool's run to the episode (terminal `run_ctx.uid`, gui `episode_id`). */
  episodeId: string;
  groupIndex?: number;
  sampleIndex?: number;
}

interface Lease {
  info: RemoteLease;
  task: RemoteTask;
  episode: RemoteAllocateOptions;
  timer: NodeJS.Timeout | null;
  failedBeats: number;
  queue: Promise<unknown>;
}

export class RemotePoolProvider {
  readonly name = "remote-pool";
  private readonly leases = new Map<string, Lease>();
  private readonly opts: Required<RemotePoolOptions>;

  constructor(opts: RemotePoolOptions) {
    if (opts.urls.length === 0) throw new Error("remote-pool needs at least one pool URL");
    this.opts = {
      heartbeatMs: 30_000,
      heartbeatFailures: 3,
      requestTimeoutMs: 60_000,
      logRoot: "build_outputs/console",
      ...opts,
    };
  }

  get protocol(): PoolProtocol {
    return this.opts.protocol;
  }

  /** Tries the pools by how many of our open leases each holds; full or unreachable ones are skipped. */
  async allocate(opts: RemoteAllocateOptions): Promise<RemoteLease> {
    const load = (url: string) => [...this.leases.values()].filter((l) => l.info.pool === url).length;
    const order = [...this.opts.urls].sort((a, b) => load(a) - load(b));
    // One request id for every try: terminal's pool answers a repeated allocate with the same lease
    // (`reused: true`), so a retry after a lost answer cannot hold two runs for one episode.
    const requestId = `${opts.episodeId}-${randomBytes(4).toString("hex")}`;
    const refusals: string[] = [];
    let full = 0;
    for (const url of order) {
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          const poolLeaseId = await this.allocateOn(url, opts, requestId);
          return this.open(url, poolLeaseId, opts);
        } catch (e) {
          if (!(e instanceof PoolFailure)) throw e;
          refusals.push(e.message);
          if (e.kind === "capacity") full++;
          // Only an unanswered request is worth repeating on the same pool (the answer may have been lost).
          if (e.kind !== "down") break;
        }
      }
    }
    if (full === order.length) throw new LeaseError("capacity", `every pool is full: ${refusals.join("; ")}`);
    throw new LeaseError("unavailable", `no pool allocated: ${refusals.join("; ")}`);
  }

  reset(leaseId: string): Promise<RemoteReset> {
    return this.serial(leaseId, ["allocated", "ready", "evaluated"], async (lease) => {
      const { url, id } = this.where(lease);
      const t = this.opts.requestTimeoutMs;
      let out: RemoteReset;
      if (this.protocol === "terminal") {
        const a = await poolPost(
          "terminal",
          url,
          "/reset",
          {
            lease_id: id,
            task_meta: { task_name: lease.task.key, instruction: lease.task.instruction, ...lease.task.meta },
            run_ctx: {
              uid: lease.episode.episodeId,
              group_index: lease.episode.groupIndex ?? 0,
              sample_index: lease.episode.sampleIndex ?? 0,
              log_dir: `${this.opts.logRoot}/${lease.episode.episodeId}`,
            },
            task_timeouts: {},
          },
          answers.terminal.reset,
          t,
        );
        out = { instruction: a.user_msg, tools: a.tool_schemas, observation: null };
      } else if (this.protocol === "gui") {
        const a = await poolPost(
          "gui",
          url,
          "/reset",
          { lease_id: id, task_config: lease.task.config ?? null },
          answers.gui.reset,
          t,
        );
        out = { instruction: lease.task.instruction, tools: [], observation: guiObservation(a.observation, false) };
      } else {
        // swe's pool has no reset: the container starts from the instance image at allocate.
        out = { instruction: lease.task.instruction, tools: [], observation: null };
      }
      lease.info.state = "ready";
      return out;
    });
  }

  step(leaseId: string, action: RemoteAction): Promise<RemoteObservation> {
    return this.serial(leaseId, ["ready"], async (lease) => {
      const { url, id } = this.where(lease);
      const t = this.opts.requestTimeoutMs;
      const expect = (kind: RemoteAction["kind"]) => {
        if (action.kind !== kind)
          throw new LeaseError("unsupported", `a ${this.protocol} pool takes "${kind}" actions, not "${action.kind}"`);
      };
      let obs: RemoteObservation;
      if (this.protocol === "terminal") {
        expect("tool");
        const a = action as Extract<RemoteAction, { kind: "tool" }>;
        const r = await poolPost(
          "terminal",
          url,
          "/exec_tool",
          { lease_id: id, tool_call: { name: a.name, arguments: a.arguments } },
          answers.terminal.exec_tool,
          t,
        );
        obs = { text: r.observation, screenshot: null, exitCode: null, done: false };
      } else if (this.protocol === "swe") {
        expect("command");
        const a = action as Extract<RemoteAction, { kind: "command" }>;
        const timeout = a.timeoutSeconds ?? 180;
        const r = await poolPost(
          "swe",
          url,
          "/exec",
          { lease_id: id, command: a.command, timeout, env: a.env ?? {} },
          answers.swe.exec,
          t + timeout * 1000,
        );
        obs = { text: r.output, screenshot: null, exitCode: r.returncode, done: false };
      } else {
        expect("gui");
        const a = action as Extract<RemoteAction, { kind: "gui" }>;
        const r = await poolPost(
          "gui",
          url,
          "/step",
          { lease_id: id, action: a.action, sleep_after_execution: a.sleepAfterSeconds ?? 0 },
          answers.gui.step,
          t,
        );
        obs = guiObservation(r.observation, r.done);
      }
      lease.info.steps++;
      return obs;
    });
  }

  /** Scores the lease once; a second evaluate is refused, so one episode never yields two rewards. */
  evaluate(leaseId: string): Promise<RemoteEvaluation> {
    return this.serial(leaseId, ["ready"], async (lease) => {
      const { url, id } = this.where(lease);
      const t = this.opts.requestTimeoutMs;
      let out: RemoteEvaluation;
      if (this.protocol === "swe") {
        // As the fork's generate does: the agent's work is its diff, applied to a fresh checkout by /evaluate.
        const diff = await poolPost("swe", url, "/diff", { lease_id: id }, answers.swe.diff, t);
        const r = await poolPost(
          "swe",
          url,
          "/evaluate",
          { lease_id: id, patch: diff.patch, eval_script: lease.task.evalScript ?? "" },
          answers.swe.evaluate,
          t + 3600_000,
        );
        out = { reward: r.resolved ? 1 : 0, detail: { resolved: r.resolved, output: r.output, patch: diff.patch } };
      } else {
        const schema = this.protocol === "gui" ? answers.gui.evaluate : answers.terminal.evaluate;
        const r = await poolPost(this.protocol, url, "/evaluate", { lease_id: id }, schema, t);
        out = { reward: r.score, detail: {} };
      }
      lease.info.state = "evaluated";
      lease.info.reward = out.reward;
      return out;
    });
  }

  /** One heartbeat now (the timer sends them on its own); a lost lease answers `lease_lost`. */
  async heartbeat(leaseId: string): Promise<RemoteLease> {
    const lease = this.lease(leaseId);
    await this.beat(lease);
    if (lease.info.state === "lost") throw new LeaseError("lease_lost", lease.info.lostReason ?? "lease lost");
    return { ...lease.info };
  }

  get(leaseId: string): RemoteLease {
    return { ...this.lease(leaseId).info };
  }

  list(): RemoteLease[] {
    return [...this.leases.values()].map((l) => ({ ...l.info }));
  }

  /** Releases the pool's run; a pool that is gone or already forgot the lease is fine (nothing is left to free). */
  async close(leaseId: string): Promise<void> {
    const lease = this.leases.get(leaseId);
    if (!lease) return;
    this.leases.delete(leaseId);
    if (lease.timer) clearInterval(lease.timer);
    const wasLost = lease.info.state === "lost";
    lease.info.state = "closed";
    await lease.queue.catch(() => undefined);
    if (wasLost) return;
    const { url, id } = this.where(lease);
    try {
      await poolPost(this.protocol, url, "/close", { lease_id: id }, answers.heartbeat, this.opts.requestTimeoutMs);
    } catch (e) {
      if (!(e instanceof PoolFailure) || (e.kind !== "unknown_lease" && e.kind !== "down")) throw e;
    }
  }

  private async allocateOn(url: string, opts: RemoteAllocateOptions, requestId: string): Promise<string> {
    const t = this.opts.requestTimeoutMs;
    if (this.protocol === "terminal")
      return (
        await poolPost(
          "terminal",
          url,
          "/allocate",
          { task_key: opts.task.key, request_id: requestId },
          answers.terminal.allocate,
          t,
        )
      ).lease_id;
    if (this.protocol === "swe") {
      if (!opts.task.image) throw new LeaseError("unsupported", `swe task ${opts.task.key} names no image`);
      return (
        await poolPost(
          "swe",
          url,
          "/allocate",
          { image: opts.task.image, instance_id: opts.task.key },
          answers.swe.allocate,
          t + 120_000,
        )
      ).lease_id;
    }
    return (await poolPost("gui", url, "/allocate", { episode_id: opts.episodeId }, answers.gui.allocate, t)).lease_id;
  }

  private open(url: string, poolLeaseId: string, opts: RemoteAllocateOptions): RemoteLease {
    const id = `rpl-${randomBytes(8).toString("hex")}`;
    const lease: Lease = {
      info: {
        id,
        protocol: this.protocol,
        pool: url,
        poolLeaseId,
        taskKey: opts.task.key,
        state: "allocated",
        createdAt: new Date().toISOString(),
        lastHeartbeatAt: null,
        lostReason: null,
        steps: 0,
        reward: null,
      },
      task: opts.task,
      episode: opts,
      timer: null,
      failedBeats: 0,
      queue: Promise.resolve(),
    };
    lease.timer = setInterval(() => void this.beat(lease), this.opts.heartbeatMs);
    lease.timer.unref();
    this.leases.set(id, lease);
    return { ...lease.info };
  }

  private async beat(lease: Lease): Promise<void> {
    if (lease.info.state === "closed" || lease.info.state === "lost") return;
    const { url, id } = this.where(lease);
    try {
      await poolPost(this.protocol, url, "/heartbeat", { lease_id: id }, answers.heartbeat, this.opts.requestTimeoutMs);
      lease.failedBeats = 0;
      lease.info.lastHeartbeatAt = new Date().toISOString();
    } catch (e) {
      if (!(e instanceof PoolFailure)) throw e;
      if (e.kind === "unknown_lease") return this.lose(lease, e.message);
      if (++lease.failedBeats >= this.opts.heartbeatFailures)
        this.lose(lease, `${lease.failedBeats} heartbeats failed: ${e.message}`);
    }
  }

  private lose(lease: Lease, reason: string): void {
    if (lease.info.state === "closed") return;
    lease.info.state = "lost";
    lease.info.lostReason = reason;
    if (lease.timer) clearInterval(lease.timer);
    lease.timer = null;
  }

  private where(lease: Lease): { url: string; id: string } {
    return { url: lease.info.pool, id: lease.info.poolLeaseId };
  }

  private lease(id: string): Lease {
    const lease = this.leases.get(id);
    if (!lease) throw new LeaseError("unknown_lease", `no lease ${id}`);
    return lease;
  }

  /** One operation at a time per lease; a pool that is gone or forgot the lease loses it. */
  private serial<T>(leaseId: string, states: RemoteLeaseState[], op: (lease: Lease) => Promise<T>): Promise<T> {
    const lease = this.lease(leaseId);
    const next = lease.queue.then(async () => {
      if (lease.info.state === "lost") throw new LeaseError("lease_lost", lease.info.lostReason ?? "lease lost");
      if (!states.includes(lease.info.state))
        throw new LeaseError("bad_state", `lease ${leaseId} is ${lease.info.state}`);
      try {
        return await op(lease);
      } catch (e) {
        if (e instanceof PoolFailure && (e.kind === "unknown_lease" || e.kind === "down")) {
          this.lose(lease, e.message);
          throw new LeaseError("lease_lost", e.message);
        }
        if (e instanceof PoolFailure) throw new LeaseError("unavailable", e.message);
        throw e;
      }
    });
    lease.queue = next.catch(() => undefined);
    return next;
  }
}

function guiObservation(raw: Record<string, unknown>, done: boolean): RemoteObservation {
  const o = answers.gui.observation.parse(raw);
  const { screenshot_b64: _, ...rest } = o;
  return {
    text: JSON.stringify(rest),
    screenshot: o.screenshot_b64 ? Buffer.from(o.screenshot_b64, "base64") : null,
    exitCode: null,
    done,
  };
}
