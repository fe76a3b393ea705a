// Installs Redis with the machine's package manager when that needs no password: as root with apt-get, dnf
// or apk, or as a normal user with Homebrew (which refuses to run as root). Anything else (e.g. a normal
// user on Debian, where it would take sudo) is left to the user with install instructions.
import { spawnSync } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

export interface Installer {
  /** What the user is told we run. */
  summary: string;
  /** `optional`: its failure does not stop the next step (a stale mirror in `apt-get update`). */
  steps: { cmd: string; args: string[]; env?: Record<string, string>; optional?: boolean }[];
}

export function onPath(cmd: string, pathVar = process.env.PATH ?? ""): boolean {
  return pathVar.split(path.delimiter).some((dir) => {
    const p = path.join(dir || ".", cmd);
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  });
}

export function redisInstaller(isRoot: boolean, has: (cmd: string) => boolean): Installer | null {
  if (isRoot && has("apt-get")) {
    const env = { DEBIAN_FRONTEND: "noninteractive" };
    return {
      summary: "apt-get update && apt-get install -y redis-server",
      // update first: a fresh machine (or container image) often has no package lists yet.
      steps: [
        { cmd: "apt-get", args: ["update"], env, optional: true },
        { cmd: "apt-get", args: ["install", "-y", "redis-server"], env },
      ],
    };
  }
  if (isRoot && has("dnf"))
    return { summary: "dnf install -y redis", steps: [{ cmd: "dnf", args: ["install", "-y", "redis"] }] };
  if (isRoot && has("apk"))
    return { summary: "apk add --no-cache redis", steps: [{ cmd: "apk", args: ["add", "--no-cache", "redis"] }] };
  if (!isRoot && has("brew"))
    return { summary: "brew install redis", steps: [{ cmd: "brew", args: ["install", "redis"] }] };
  return null;
}

export function autoInstallDisabled(env: Record<string, string | undefined> = process.env): boolean {
  const v = env.NO_AUTO_INSTALL?.trim().toLowerCase();
  return !!v && v !== "0" && v !== "false" && v !== "no";
}

/** Runs the installer's steps with their output on our stdout; returns the failing step's description, or null. */
export function runInstaller(installer: Installer): string | null {
  for (const step of installer.steps) {
    const r = spawnSync(step.cmd, step.args, {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, ...step.env },
    });
    if (r.status !== 0 && !step.optional)
      return `\`${[step.cmd, ...step.args].join(" ")}\` ${r.error ? `could not run (${r.error.message})` : `exited with ${r.status ?? r.signal}`}`;
  }
  return null;
}
