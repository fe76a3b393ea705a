// Runs each process in its own process group with prefixed logs, restarts crashed ones with backoff,
// and on shutdown signals whole groups (SIGTERM, then SIGKILL after a grace period): no orphans.
import { spawn, type ChildProcess } from "node:child_process";
import readline from "node:readline";

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

const COLORS = [36, 35, 33, 32, 34, 31, 96, 95];

export class Supervisor {
  private children = new Map<string, ChildProcess>();
  private stopping = false;
  private restarts = new Map<string, number>();

  constructor(private readonly specs: ProcessSpec[]) {}

  start(): void {
    this.specs.forEach((s, i) => this.spawn(s, COLORS[i % COLORS.length]!));
  }

  private spawn(spec: ProcessSpec, color: number): void {
    const child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.children.set(spec.name, child);
    const prefix = `\x1b[${color}m[${spec.name.padEnd(8)}]\x1b[0m `;
    for (const stream of [child.stdout!, child.stderr!]) {
      readline.createInterface({ input: stream }).on("line", (line) => process.stdout.write(prefix + line + "\n"));
    }
    child.on("exit", (code, signal) => {
      if (this.stopping) return;
      const n = (this.restarts.get(spec.name) ?? 0) + 1;
      this.restarts.set(spec.name, n);
      const delay = Math.min(30_000, 500 * 2 ** Math.min(n, 6));
      process.stdout.write(`${prefix}exited (${signal ?? code}); restarting in ${delay} ms\n`);
      setTimeout(() => !this.stopping && this.spawn(spec, color), delay);
    });
  }

  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    const alive = [...this.children.values()].filter((c) => c.exitCode === null && c.signalCode === null);
    const exited = alive.map((c) => new Promise<void>((r) => c.once("exit", () => r())));
    for (const c of alive) killGroup(c, "SIGTERM");
    const timer = setTimeout(() => alive.forEach((c) => killGroup(c, "SIGKILL")), graceMs);
    await Promise.all(exited);
    clearTimeout(timer);
  }
}

function killGroup(c: ChildProcess, signal: NodeJS.Signals): void {
  if (!c.pid) return;
  try {
    process.kill(-c.pid, signal); // negative pid: the whole process group (tsx spawns a child node)
  } catch {
    /* already gone */
  }
}
