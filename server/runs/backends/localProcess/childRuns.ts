// One supervised child process per run, for the backends whose trainer is a single local program (hf-local's
// integrations/hf/train.py, Tinker's bridge): spawned as the leader of its own process group with the
// control plane's allow-listed variables, its output kept as the run's log, stopped by group with a grace
// period. The backends differ only in the command and in how they name their process in messages.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { inheritedEnv } from "../../../platform/env";
import { tailLines, type TrainerStatus } from "../backend";
import { terminateGroup } from "./processGroup";

export interface ChildCommand {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}

interface ChildRun {
  child: ChildProcess;
  pgid: number;
  lines: string[];
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  stopping?: Promise<boolean>;
}

export interface ChildRunsOptions {
  /** How messages name the process ("hf-local", "the Tinker bridge"). */
  label: string;
  /** Prefix of the external job id (`<prefix>:<pgid>`). */
  jobPrefix: string;
  /** Said by status() for a run this process did not start (e.g. after a control-plane restart). */
  notTracked: string;
  /** Variables passed through from the control plane; everything else (database URLs, secrets) stays out. */
  inherited: readonly string[];
  graceMs: number;
  /** Log lines kept per run. */
  maxLogLines: number;
}

export class ChildRuns {
  private readonly runs = new Map<string, ChildRun>();

  constructor(private readonly opts: ChildRunsOptions) {}

  /** Starts the run's process, or answers with the one already running for it (a retried start). */
  async start(runId: string, command: ChildCommand): Promise<{ externalJobId: string }> {
    const existing = this.runs.get(runId);
    if (existing) return { externalJobId: `${this.opts.jobPrefix}:${existing.pgid}` };
    const { argv, cwd } = command;
    const env = { ...command.env };
    const inherited = inheritedEnv();
    for (const name of this.opts.inherited) if (inherited[name] !== undefined) env[name] ??= inherited[name]!;
    env.PYTHONPATH = [cwd, inherited.PYTHONPATH].filter(Boolean).join(":");
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd,
      env: env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const run = await new Promise<ChildRun>((resolve, reject) => {
      child.once("error", (err) =>
        reject(new Error(`could not start ${this.opts.label} (${argv.join(" ")}): ${err.message}`)),
      );
      child.once("spawn", () => resolve({ child, pgid: child.pid!, lines: [] }));
    });
    this.runs.set(runId, run);
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on("line", (line) => this.append(run, line));
    }
    child.once("exit", (code, signal) => {
      run.exit = { code, signal };
      this.append(run, `[control-plane] ${this.opts.label} ${exitText(run.exit)}`);
    });
    return { externalJobId: `${this.opts.jobPrefix}:${run.pgid}` };
  }

  async stop(runId: string): Promise<void> {
    const run = this.runs.get(runId);
    if (!run || run.exit) return;
    run.stopping ??= terminateGroup(run.pgid, this.opts.graceMs);
    await run.stopping;
    if (!run.exit) await new Promise((resolve) => run.child.once("exit", resolve));
  }

  status(runId: string): TrainerStatus {
    const run = this.runs.get(runId);
    if (!run) return { state: "LOST", message: this.opts.notTracked };
    if (!run.exit) return { state: "RUNNING" };
    if (run.stopping) return { state: "KILLED", message: "stopped on request" };
    if (run.exit.code === 0) return { state: "FINISHED", message: `${this.opts.label} exited cleanly` };
    const last = run.lines.filter((l) => !l.startsWith("[control-plane]")).at(-1);
    return { state: "FAILED", message: `${this.opts.label} ${exitText(run.exit)}${last ? `: ${last}` : ""}` };
  }

  logs(runId: string, tail?: number): string {
    const run = this.runs.get(runId);
    return run ? tailLines(run.lines.join("\n"), tail) : "";
  }

  /** Ends every process started here (control-plane shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.runs.keys()].map((runId) => this.stop(runId)));
  }

  /** Forgets a finished run's process and logs (after the control plane has saved them). */
  forget(runId: string): void {
    if (this.runs.get(runId)?.exit) this.runs.delete(runId);
  }

  private append(run: ChildRun, line: string): void {
    run.lines.push(line);
    if (run.lines.length > this.opts.maxLogLines) run.lines.splice(0, run.lines.length - this.opts.maxLogLines);
  }
}

function exitText(exit: { code: number | null; signal: NodeJS.Signals | null }): string {
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}
