// Every worker process `npm start` runs. Each can be switched off with WORKER_<NAME>=0 (e.g. to run the
// proxy on another host): the flags are declared in server/platform/env.ts (section `workers`).
import { settings, type EnvSource, type Settings } from "../server/platform/env";

export interface WorkerSpec {
  name: string;
  entry: string;
  description: string;
  enabled: (env: EnvSource) => boolean;
}

const flag = (name: keyof Settings<"workers">) => (env: EnvSource) => settings("workers", env)[name];

export const WORKERS: WorkerSpec[] = [
  {
    name: "serve",
    entry: "workers/serve/main.ts",
    description: "OpenAI-compatible recording proxy",
    enabled: flag("WORKER_SERVE"),
  },
  {
    name: "judge",
    entry: "workers/judge/main.ts",
    description: "PRM scoring, OPD hints, teacher log-probs",
    enabled: flag("WORKER_JUDGE"),
  },
  {
    name: "train",
    entry: "workers/train/main.ts",
    description: "Trainer: turns judged samples into policy versions",
    enabled: flag("WORKER_TRAIN"),
  },
  {
    name: "simulate",
    entry: "workers/simulate/main.ts",
    description: "Simulated users driving conversations",
    enabled: flag("WORKER_SIMULATE"),
  },
  {
    name: "evaluate",
    entry: "workers/evaluate/main.ts",
    description: "Held-out evaluation of policy versions, promotion gate, auto-rollback",
    enabled: flag("WORKER_EVALUATE"),
  },
  {
    name: "episodes",
    entry: "workers/episodes/main.ts",
    description: "Agent episodes: tools in sandboxes, verifiers, GRPO group advantages",
    enabled: flag("WORKER_EPISODES"),
  },
];

/**
 * How to run a worker: one plain node process with the tsx loader. (The `tsx` CLI wraps the worker in a second
 * process that SIGKILLs it ~30 ms after relaying SIGTERM, which would cut graceful shutdown short.)
 */
export function workerCommand(root: string, spec: WorkerSpec): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--import", "tsx", `${root}/${spec.entry}`] };
}
