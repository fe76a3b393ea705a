// TrainerBackend that runs the roles of a one-node GPU plan as local child processes: the actor, one process
// per rollout engine and one per PRM engine, each pinned to its GPUs with CUDA_VISIBLE_DEVICES and each
// leading its own process group so stop() can end whole trees (and only those).
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { assertGpuPlan, planRoleGroups, type RoleGroup } from "../../../gpu/plan";
import {
  RunLaunchSchema,
  tailLines,
  type LaunchPlan,
  type LocalProcessConfig,
  type RunHandle,
  type RunLaunch,
  type TrainerBackend,
  type TrainerStatus,
} from "../backend";
import { inheritedEnv } from "../../../platform/env";
import { shellQuote } from "../slime/args";
import { groupAlive, terminateGroup } from "./processGroup";

export const LOCAL_PROCESS_BACKEND_KIND = "local-process";

/** Variables passed through from the control plane; everything else (database URLs, secrets) stays out. */
export const INHERITED_ENV = [
  "PATH",
  "HOME",
  "USER",
  "LANG",
  "LC_ALL",
  "TZ",
  "TMPDIR",
  "SHELL",
  "LD_LIBRARY_PATH",
  "CUDA_HOME",
  "CUDA_PATH",
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
  "HF_HOME",
] as const;

interface RoleProcess {
  group: RoleGroup;
  child: ChildProcess;
  pgid: number;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  /** Set once termination of this group has begun; resolves true when the group is empty. */
  terminated?: Promise<boolean>;
}

interface LocalRun {
  runId: string;
  procs: RoleProcess[];
  graceMs: number;
  lines: string[];
  /** Why the run ended: set once, by the first of stop(), a failed role, or the actor finishing. */
  outcome?: TrainerStatus;
}

export interface LocalProcessBackendOptions {
  /** Log lines kept per run (default 10,000). */
  maxLogLines?: number;
}

function describe(group: RoleGroup): string {
  if (group.role === "actor") return "actor";
  if (group.role === "teacher") return `PRM teacher (GPUs ${group.devices.map((d) => d.gpu).join(",")})`;
  return `${group.role === "rollout" ? "rollout" : "PRM"} engine ${group.engine} (GPUs ${group.devices.map((d) => d.gpu).join(",")})`;
}

function exitText(exit: { code: number | null; signal: NodeJS.Signals | null }): string {
  return exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

export class LocalProcessBackend implements TrainerBackend {
  readonly kind = LOCAL_PROCESS_BACKEND_KIND;
  private readonly runs = new Map<string, LocalRun>();
  private readonly maxLogLines: number;

  constructor(opts: LocalProcessBackendOptions = {}) {
    this.maxLogLines = opts.maxLogLines ?? 10_000;
  }

  preview(launch: RunLaunch): LaunchPlan {
    const local = launch.config.localProcess;
    if (!local) throw new Error("set LOCAL_PROCESS_ROLES (JSON role commands) for the train worker");
    const command = planRoleGroups(assertGpuPlan(launch.config.gpu))
      .map((g) => {
        const spec = local.roles[g.role];
        const argv = spec ? spec.command.map(shellQuote).join(" ") : "(no command for this role)";
        return `# ${g.label}\nCUDA_VISIBLE_DEVICES=${g.devices.map((d) => d.gpu).join(",")} ${argv}`;
      })
      .join("\n");
    return {
      command,
      notes: ["Each role runs in its own process group on this machine; stopping the run ends exactly those groups."],
    };
  }

  async start(input: RunLaunch): Promise<{ externalJobId: string }> {
    const launch = RunLaunchSchema.parse(input);
    const existing = this.runs.get(launch.runId);
    if (existing) return { externalJobId: externalId(existing) };

    const local = launch.config.localProcess;
    if (!local) throw new Error(`run ${launch.runId}: the config has no localProcess role commands`);
    const plan = assertGpuPlan(launch.config.gpu);
    if (plan.split.nodes !== 1) {
      throw new Error(
        `the local-process backend runs on one node, but the GPU split has ${plan.split.nodes} nodes: use the ray-slime backend`,
      );
    }
    const groups = planRoleGroups(plan);
    if (!local.roles.prm && groups.some((g) => g.role === "prm")) {
      throw new Error(
        `the GPU split has ${plan.summary.prm.engines} PRM engine(s) but localProcess.roles.prm has no command`,
      );
    }
    if (!local.roles.teacher && groups.some((g) => g.role === "teacher")) {
      throw new Error(
        `the GPU split has a PRM teacher (${plan.summary.teacher.gpus} GPUs) but localProcess.roles.teacher has no command`,
      );
    }

    const run: LocalRun = { runId: launch.runId, procs: [], graceMs: local.graceMs, lines: [] };
    this.runs.set(launch.runId, run);
    try {
      for (const group of groups) {
        run.procs.push(await this.spawnRole(run, launch, local, group));
        // A role that died while the others were starting has already failed the run.
        if (run.outcome) {
          await this.cleanup(run);
          break;
        }
      }
    } catch (err) {
      run.outcome = {
        state: "FAILED",
        message: `could not start: ${err instanceof Error ? err.message : String(err)}`,
      };
      await this.cleanup(run);
      this.runs.delete(launch.runId);
      throw err;
    }
    return { externalJobId: externalId(run) };
  }

  async stop(run: RunHandle): Promise<void> {
    const local = this.runs.get(run.runId);
    if (!local) return;
    local.outcome ??= { state: "KILLED", message: "stopped on request" };
    await this.cleanup(local);
  }

  async status(run: RunHandle): Promise<TrainerStatus> {
    const local = this.runs.get(run.runId);
    if (!local) {
      return {
        state: "LOST",
        message: `no local processes are tracked for run ${run.runId} in this control-plane process (it may have restarted); check the GPUs for leftover processes`,
      };
    }
    if (local.outcome) return local.outcome;
    return {
      state: "RUNNING",
      message: `${local.procs.length} processes running: ${local.procs.map((p) => p.group.label).join(", ")}`,
    };
  }

  async logs(run: RunHandle, opts: { tail?: number } = {}): Promise<string> {
    const local = this.runs.get(run.runId);
    return local ? tailLines(local.lines.join("\n"), opts.tail) : "";
  }

  /** Stops every run this backend started; call on control-plane shutdown so no trainer outlives it unmanaged. */
  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.runs.values()].map((r) => {
        r.outcome ??= { state: "KILLED", message: "control plane shut down" };
        return this.cleanup(r);
      }),
    );
  }

  /** Forgets a finished run's state and logs (after the control plane has recorded them). */
  forget(runId: string): void {
    const run = this.runs.get(runId);
    if (run && run.procs.every((p) => !groupAlive(p.pgid))) this.runs.delete(runId);
  }

  private spawnRole(
    run: LocalRun,
    launch: RunLaunch,
    local: LocalProcessConfig,
    group: RoleGroup,
  ): Promise<RoleProcess> {
    const spec = local.roles[group.role];
    if (!spec) return Promise.reject(new Error(`localProcess.roles.${group.role} has no command`));
    const env: Record<string, string> = {};
    const inherited = inheritedEnv();
    for (const name of INHERITED_ENV) {
      const value = inherited[name];
      if (value !== undefined) env[name] = value;
    }
    Object.assign(env, local.env, {
      CUDA_VISIBLE_DEVICES: group.devices.map((d) => d.gpu).join(","),
      OPENCLAW_ROLE: group.role,
      OPENCLAW_ROLE_LABEL: group.label,
      ...(group.engine !== undefined ? { OPENCLAW_ENGINE_INDEX: String(group.engine) } : {}),
      RUN_ID: launch.runId,
      OPENCLAW_EXPERIMENT: launch.experimentSlug,
      CONTROL_PLANE_URL: launch.config.controlPlaneUrl,
      CONTROL_PLANE_API_KEY: launch.config.apiKey,
    });

    return new Promise((resolve, reject) => {
      const child = spawn(spec.command[0], spec.command.slice(1), {
        cwd: spec.cwd,
        // Next's typings make NODE_ENV a required key of ProcessEnv; the roles deliberately get a minimal env.
        env: env as NodeJS.ProcessEnv,
        detached: true, // own process group (setsid), so the group id is the child's pid
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.on("error", (err) => {
        this.appendLog(run, `[${group.label}] ${err.message}`);
        reject(new Error(`${group.label}: ${err.message}`));
      });
      child.once("spawn", () => {
        const proc: RoleProcess = { group, child, pgid: child.pid! };
        for (const stream of [child.stdout, child.stderr]) {
          if (stream)
            createInterface({ input: stream }).on("line", (line) => this.appendLog(run, `[${group.label}] ${line}`));
        }
        // "exit", not "close": grandchildren may hold the pipes open long after the role itself ended.
        child.once("exit", (code, signal) => this.onExit(run, proc, code, signal));
        resolve(proc);
      });
    });
  }

  private onExit(run: LocalRun, proc: RoleProcess, code: number | null, signal: NodeJS.Signals | null): void {
    proc.exit = { code, signal };
    this.appendLog(run, `[${proc.group.label}] ${exitText(proc.exit)}`);
    if (run.outcome) return;
    // The actor drives training: its clean exit ends the run. Any other exit is a failure of the run.
    if (proc.group.role === "actor" && code === 0)
      run.outcome = { state: "FINISHED", message: "the actor exited cleanly" };
    else run.outcome = { state: "FAILED", message: `${describe(proc.group)} ${exitText(proc.exit)}` };
    void this.cleanup(run);
  }

  /** Terminates every group of the run (idempotent; also covers roles spawned after an earlier call). */
  private async cleanup(run: LocalRun): Promise<void> {
    for (const p of run.procs) p.terminated ??= terminateGroup(p.pgid, run.graceMs);
    const results = await Promise.all(run.procs.map((p) => p.terminated));
    // The group is gone; wait for each role's own 'exit' event too, so its exit line is logged when stop() returns.
    const exited = (p: RoleProcess) => !!p.exit || p.child.exitCode !== null || p.child.signalCode !== null;
    await Promise.all(
      run.procs.map((p, i) => (!results[i] || exited(p) ? undefined : new Promise((r) => p.child.once("exit", r)))),
    );
    const stuck = run.procs.filter((_, i) => !results[i]).map((p) => p.group.label);
    if (stuck.length > 0)
      this.appendLog(run, `[control-plane] processes survived SIGKILL in the groups of: ${stuck.join(", ")}`);
  }

  private appendLog(run: LocalRun, line: string): void {
    run.lines.push(line);
    if (run.lines.length > this.maxLogLines) run.lines.splice(0, run.lines.length - this.maxLogLines);
  }
}

function externalId(run: LocalRun): string {
  return `local:${run.procs.map((p) => p.pgid).join(",")}`;
}
