// One interface for every sandbox provider, with the lease states of upstream's environment pool
// (terminal-rl/remote/pool_server.py: allocate → reset → exec_tool* → evaluate → close, with heartbeat and
// idle reaping). A lease is one episode's sandbox; every command run in it is kept on the lease.
import type { NetworkPolicy, SandboxLimits } from "./limits";
import type { SandboxFile } from "./files";

export type LeaseState = "allocated" | "ready" | "evaluated" | "closed";

/** Who ran a command: the agent's tool call, the task's verifier, or the oracle's solution. */
export type ExecPhase = "agent" | "verifier" | "oracle";

export interface ExecResult {
  phase: ExecPhase;
  command: string;
  startedAt: string;
  durationMs: number;
  /** The command's exit status (128 + n when signal n killed it); null when the sandbox itself was killed. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Bytes the command wrote, kept or not. */
  stdoutBytes: number;
  stderrBytes: number;
  truncated: boolean;
}

export interface EvaluationResult {
  /** The verifier's reward, or null when it wrote none (or an unreadable one: see `error`). */
  reward: number | null;
  rewardFile: "reward.txt" | "reward.json" | null;
  error: string | null;
  exec: ExecResult;
}

export interface ExecOptions {
  phase?: ExecPhase;
  /** For the agent: at most the lease's wall-clock limit. A verifier or oracle run uses the task's own. */
  timeoutSeconds?: number;
  env?: Record<string, string>;
  /** Folders mounted read-only for this command only (e.g. `/solution` for the oracle). */
  readOnly?: { at: "/tests" | "/solution"; files: SandboxFile[] }[];
  /**
   * Host unix sockets bound into the sandbox for this command only: the one way out of a sandbox without
   * network (a harness reaches the recording proxy through one, see harness/bridge.ts).
   */
  sockets?: { at: string; host: string }[];
  /** Host folders bound read-only under /tmp for this command only (a harness's agent installation). */
  hostReadOnly?: { at: `/tmp/${string}`; host: string }[];
}

export interface VerifierSpec {
  /** Copied to /tests for the verifier run only, so the agent never sees them. */
  files: SandboxFile[];
  command: string;
  timeoutSeconds: number;
  env?: Record<string, string>;
}

export interface LeaseInfo {
  id: string;
  provider: string;
  state: LeaseState;
  createdAt: string;
  lastUsedAt: string;
  limits: SandboxLimits;
  network: NetworkPolicy;
  /** Where the agent works inside the sandbox. */
  workDir: string;
  commands: readonly ExecResult[];
}

/** What a container provider runs a lease in: an image to pull, or one to build (cached by content). */
export type ContainerImage = { ref: string } | { dockerfile: string; context: SandboxFile[] };

export interface AllocateOptions {
  limits: SandboxLimits;
  network: NetworkPolicy;
  /** For container providers (the task's image); local-bwrap runs on the host's system and ignores it. */
  image?: ContainerImage | null;
}

export type Availability = { ok: true; detail: string } | { ok: false; reason: string };

export interface SandboxProvider {
  readonly name: string;
  available(): Promise<Availability>;
  allocate(opts: AllocateOptions): Promise<LeaseInfo>;
  /** Empties the workspace and writes the task's files into it. */
  reset(leaseId: string, files: SandboxFile[]): Promise<LeaseInfo>;
  exec(leaseId: string, command: string, opts?: ExecOptions): Promise<ExecResult>;
  /** Runs the verifier with fresh, empty /logs/verifier and reads the reward it wrote there. */
  evaluate(leaseId: string, verifier: VerifierSpec): Promise<EvaluationResult>;
  heartbeat(leaseId: string): LeaseInfo;
  get(leaseId: string): LeaseInfo;
  list(): LeaseInfo[];
  /** Kills whatever still runs, removes every file; closing a closed or unknown lease is a no-op. */
  close(leaseId: string): Promise<void>;
  /** Closes leases unused for longer than `idleMs` (upstream's run_idle_ttl); returns their ids. */
  reapIdle(idleMs: number, now?: number): Promise<string[]>;
}

export class LeaseError extends Error {
  constructor(
    /** `lease_lost` and `capacity` come from remote pools (remote/provider.ts). */
    readonly code: "unknown_lease" | "bad_state" | "unavailable" | "unsupported" | "lease_lost" | "capacity",
    message: string,
  ) {
    super(message);
    this.name = "LeaseError";
  }
}

/** Which operations a state allows (closed allows none). */
const ALLOWED: Record<LeaseState, readonly ("reset" | "exec" | "evaluate")[]> = {
  allocated: ["reset"],
  ready: ["reset", "exec", "evaluate"],
  evaluated: ["reset", "exec", "evaluate"],
  closed: [],
};

export function assertState(lease: { id: string; state: LeaseState }, op: "reset" | "exec" | "evaluate"): void {
  if (!ALLOWED[lease.state].includes(op))
    throw new LeaseError("bad_state", `lease ${lease.id} is ${lease.state}: ${op} is not allowed`);
}
