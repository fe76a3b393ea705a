// The save-time check of a custom reward module, for the web process: importing a module runs it, and a module
// that blocks, exits or starts something would take the console with it. So the probe runs in a child process
// (customRewardProbeMain.ts under tsx) that is killed after EXTENSION_PROBE_TIMEOUT_MS.
import { spawn } from "node:child_process";
import path from "node:path";
import { z } from "zod";
import { CustomRewardResultSchema, type CustomRewardResult } from "./schemas";
import { settings } from "../../platform/env";

export type ProbeOutcome = { ok: true; probe: CustomRewardResult } | { ok: false; error: string };

const OutcomeSchema = z.union([
  z.object({ ok: z.literal(true), probe: CustomRewardResultSchema }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);

/** The result pipe is read up to this many bytes; an outcome is a few hundred. */
const MAX_OUTCOME_BYTES = 64 * 1024;

export function probeCustomReward(modulePath: string, opts: { root?: string } = {}): Promise<ProbeOutcome> {
  const timeoutMs = settings("extensions").EXTENSION_PROBE_TIMEOUT_MS;
  const root = opts.root ?? process.cwd();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(root, "server/judge/core/customRewardProbeMain.ts"), modulePath],
      {
        cwd: root,
        // The module's own answer gets most of the budget; the rest is the child's start-up.
        env: { ...process.env, PROBE_TIMEOUT_MS: String(Math.max(50, Math.floor(timeoutMs * 0.8))) },
        stdio: ["ignore", "ignore", "ignore", "pipe"],
      },
    );
    let out = "";
    let settled = false;
    const finish = (o: ProbeOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ ok: false, error: `the module did not answer the probe within ${timeoutMs} ms` });
    }, timeoutMs);
    const pipe = child.stdio[3] as NodeJS.ReadableStream;
    pipe.setEncoding("utf8");
    pipe.on("data", (chunk: string) => {
      if (out.length < MAX_OUTCOME_BYTES) out += chunk;
    });
    child.on("error", (err) => finish({ ok: false, error: `the probe could not start: ${err.message}` }));
    child.on("close", (code) => {
      const parsed = OutcomeSchema.safeParse(safeJson(out.split("\n")[0] ?? ""));
      finish(
        parsed.success
          ? parsed.data
          : { ok: false, error: `the module ended the probe without an answer (exit code ${code ?? "signal"})` },
      );
    });
  });
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}
