// A worker whose engine faults stops with a failure code, so the supervisor starts a fresh one: the fault is heard
// even though the code that met it swallowed the error (as a proxy request or a judge job turns it into a 502 or a
// failed job and goes on).
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../../..");
const at = (p: string) => JSON.stringify(path.join(root, p));

/** A worker that keeps calling a kernel which traps — the third call onward — and swallows every failure. */
const WORKER = `
import * as tf from "@tensorflow/tfjs-core";
import { initBackend } from ${at("server/engine/backend.ts")};
import { runWorker, sleep } from ${at("server/platform/workerRuntime.ts")};
import { restartOnEngineFault } from ${at("workers/engineFault.ts")};
// (module (func (export "f") unreachable))
const bytes = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0, 7, 5, 1, 1, 0x66, 0, 0, 0x0a, 5, 1, 3, 0, 0, 0x0b]);
const trap = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.f;
await runWorker("fault-probe", async (ctx) => {
  restartOnEngineFault(ctx);
  await initBackend();
  let calls = 0;
  tf.registerKernel({ kernelName: "ProbeKernel", backendName: "wasm", kernelFunc: () => (++calls > 2 && trap(), []) });
  while (!ctx.signal.aborted) {
    try {
      tf.engine().runKernel("ProbeKernel", { x: tf.scalar(calls) }, {});
      console.log("served");
    } catch {
      console.log("failed, going on");
    }
    await sleep(50, ctx.signal);
  }
});
`;

describe("a worker running the embedded engine", () => {
  it("exits with a failure code after an engine fault it caught itself", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", WORKER], {
      cwd: root,
      env: process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d));
    child.stderr.on("data", (d: Buffer) => (output += d));
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    expect(output.match(/^served$/gm)).toHaveLength(2);
    expect(output).toMatch(/engine fault \(.*\): stopping, to be restarted with a fresh engine/);
    expect(code).toBe(1);
  }, 60_000);
});
