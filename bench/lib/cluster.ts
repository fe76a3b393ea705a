// The product's worker processes (proxy, judge, trainer, simulated users) spawned exactly as `npm start`
// spawns them (workers/registry.ts workerCommand), each with the caller's environment overrides, so a test
// or bench can SIGKILL one and start it again. Also: a free TCP port.
import { spawn, type ChildProcess } from "node:child_process";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import { WORKERS, workerCommand } from "../../workers/registry";

export type WorkerName = "serve" | "judge" | "train" | "simulate";

export const repoRoot = path.resolve(import.meta.dirname, "../..");

export async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface WorkerProcess {
  name: WorkerName;
  child: ChildProcess;
  /** Output lines of this process (stdout and stderr), newest last. */
  lines: string[];
  startedAt: number;
}

const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

export function exited(c: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (!alive(c)) return resolve({ code: c.exitCode, signal: c.signalCode });
    c.once("exit", (code, signal) => resolve({ code, signal }));
  });
}

export class Cluster {
  readonly procs = new Map<WorkerName, WorkerProcess>();
  /** Every process ever started, for clean-up and for reading a dead one's output. */
  readonly history: WorkerProcess[] = [];

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly echo: ((name: WorkerName, line: string) => void) | null = null,
  ) {}

  start(name: WorkerName, extraEnv: Record<string, string> = {}): WorkerProcess {
    const spec = WORKERS.find((w) => w.name === name);
    if (!spec) throw new Error(`no worker named ${name}`);
    const { command, args } = workerCommand(repoRoot, spec);
    const child = spawn(command, args, {
      cwd: repoRoot,
      env: { ...this.env, ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const p: WorkerProcess = { name, child, lines: [], startedAt: Date.now() };
    const take = (d: Buffer) => {
      for (const line of d.toString().split("\n").filter(Boolean)) {
        p.lines.push(line);
        if (p.lines.length > 5000) p.lines.splice(0, 1000);
        this.echo?.(name, line);
      }
    };
    child.stdout!.on("data", take);
    child.stderr!.on("data", take);
    this.procs.set(name, p);
    this.history.push(p);
    return p;
  }

  get(name: WorkerName): WorkerProcess {
    const p = this.procs.get(name);
    if (!p) throw new Error(`${name} was never started`);
    return p;
  }

  /** SIGKILL: no shutdown handler runs, whatever was in memory is gone. */
  async kill(name: WorkerName): Promise<void> {
    const p = this.get(name);
    if (alive(p.child)) p.child.kill("SIGKILL");
    await exited(p.child);
  }

  /** Graceful stop of everything still running (SIGTERM, then SIGKILL after `graceMs`). */
  async stopAll(graceMs = 20_000): Promise<void> {
    await Promise.all(
      this.history.map(async (p) => {
        if (!alive(p.child)) return;
        p.child.kill("SIGTERM");
        const t = setTimeout(() => alive(p.child) && p.child.kill("SIGKILL"), graceMs);
        await exited(p.child);
        clearTimeout(t);
      }),
    );
  }

  /** The last lines of a worker's output (for failure messages). */
  tail(name: WorkerName, n = 40): string {
    return this.history
      .filter((p) => p.name === name)
      .flatMap((p) => p.lines)
      .slice(-n)
      .join("\n");
  }
}
