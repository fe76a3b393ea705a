// A worker dies with its launcher: a launcher killed with SIGKILL (it cannot forward anything) leaves its worker
// re-parented, and the worker stops by itself instead of holding its port and queues for the next start.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../../..");

/** A worker that does nothing until it is told to stop. */
const WORKER = `
import { runWorker } from ${JSON.stringify(path.join(root, "server/platform/workerRuntime.ts"))};
import { writeFileSync } from "node:fs";
await runWorker("orphan-probe", (ctx) => {
  writeFileSync(process.env.READY_FILE, "started");
  return new Promise((r) => ctx.signal.addEventListener("abort", r));
});
`;
/** A launcher that starts the worker, says its pid, and then stays until it is killed. */
const LAUNCHER = `
const { spawn } = require("node:child_process");
const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", ${JSON.stringify(WORKER)}], { stdio: "ignore" });
console.log(child.pid);
setInterval(() => {}, 1000);
`;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("worker runtime", () => {
  it("stops a worker whose launcher was SIGKILLed", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "orphan-"));
    const ready = path.join(dir, "ready");
    const launcher = spawn(process.execPath, ["-e", LAUNCHER], {
      cwd: root,
      env: { ...process.env, READY_FILE: ready },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const workerPid = await new Promise<number>((resolve) =>
      launcher.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))),
    );
    // The worker's runtime has started (it records its launcher then).
    while (!existsSync(ready) && alive(workerPid)) await new Promise((r) => setTimeout(r, 100));
    rmSync(dir, { recursive: true, force: true });
    expect(alive(workerPid)).toBe(true);
    launcher.kill("SIGKILL");
    const deadline = Date.now() + 30_000;
    while (alive(workerPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const survived = alive(workerPid);
    if (survived) process.kill(workerPid, "SIGKILL");
    expect(survived).toBe(false);
  }, 60_000);
});
