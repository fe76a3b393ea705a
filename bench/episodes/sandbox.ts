/**
 * local-bwrap benchmark (issue #30's targets): allocate + reset + close latency (p50, p95) of one lease, then a soak
 * of concurrent episodes on the committed terminal examples (examples/environments/terminal: each lease gets a
 * task's workspace, runs the task's oracle solution and its verifier, and closes) for a while, checking after
 * every wave and at the end that nothing leaked: no process of a lease uid (as root), no mount naming a lease, no
 * folder left under the sandbox root. Target: p50 ≤ 50 ms; 8 concurrent episodes for 10 minutes with no leak.
 *
 *   nice -n 10 npx tsx bench/episodes/sandbox.ts [--iterations 40] [--concurrency 8] [--seconds 600]
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { LocalBwrapProvider } from "../../server/environments/sandbox/bwrap";
import { sandboxLimitsSchema } from "../../server/environments/sandbox/limits";
import { pidsOfUid } from "../../server/environments/sandbox/processes";
import { parseTasks } from "../../server/environments/tasks/import";
import type { TerminalTask } from "../../server/environments/tasks/spec";

const root = path.resolve(import.meta.dirname, "../..");
const ArgsSchema = z.object({
  iterations: z.coerce.number().int().min(1).default(40),
  concurrency: z.coerce.number().int().min(1).default(8),
  seconds: z.coerce.number().min(0).default(600),
});

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

async function main() {
  const { values } = parseArgs({
    options: Object.fromEntries(Object.keys(ArgsSchema.shape).map((k) => [k, { type: "string" as const }])),
  });
  const args = ArgsSchema.parse(values);
  const sandboxRoot = mkdtempSync(path.join(tmpdir(), "ocrl-sbx-bench-"));
  const provider = new LocalBwrapProvider({
    root: sandboxRoot,
    bwrap: "bwrap",
    uidBase: 220_000 + (process.pid % 1000) * 16,
    uidCount: 16,
  });
  const availability = await provider.available();
  if (!availability.ok) throw new Error(`local-bwrap is not available here: ${availability.reason}`);
  const asRoot = process.getuid?.() === 0;
  const limits = sandboxLimitsSchema.parse({ wallSeconds: 30 });
  const tasks = parseTasks({ format: "harbor", folder: path.join(root, "examples/environments/terminal") }).filter(
    (t): t is TerminalTask => t.kind === "terminal" && t.solution !== null,
  );

  // Latency of one lease's life without commands: allocate → reset (a task's workspace) → close.
  const lifecycle: number[] = [];
  for (let i = 0; i < args.iterations; i++) {
    const t0 = performance.now();
    const lease = await provider.allocate({ limits, network: "none" });
    await provider.reset(lease.id, tasks[i % tasks.length].workspace);
    await provider.close(lease.id);
    lifecycle.push(performance.now() - t0);
  }
  console.log(
    `allocate+reset+close over ${args.iterations}: p50 ${pct(lifecycle, 0.5).toFixed(1)} ms, p95 ${pct(lifecycle, 0.95).toFixed(1)} ms (target p50 ≤ 50 ms: ${pct(lifecycle, 0.5) <= 50 ? "met" : "NOT met"})`,
  );

  // Soak: `concurrency` episodes at once, wave after wave, each the oracle solution then the verifier.
  const leaks: string[] = [];
  const uids = new Set<number>();
  const ids = new Set<string>();
  const checkLeaks = (when: string) => {
    const mounts = readFileSync("/proc/self/mountinfo", "utf8");
    for (const id of ids) if (mounts.includes(id)) leaks.push(`${when}: a mount names lease ${id}`);
    const left = readdirSync(sandboxRoot).filter((f) => f !== ".uids");
    if (left.length) leaks.push(`${when}: left under the sandbox root: ${left.join(", ")}`);
    if (asRoot) for (const uid of uids) if (pidsOfUid(uid).length) leaks.push(`${when}: processes of lease uid ${uid}`);
  };
  const end = Date.now() + args.seconds * 1000;
  let episodes = 0;
  let passed = 0;
  const episodeMs: number[] = [];
  let waves = 0;
  do {
    await Promise.all(
      Array.from({ length: args.concurrency }, async (_, slot) => {
        const task = tasks[(waves * args.concurrency + slot) % tasks.length];
        const t0 = performance.now();
        const lease = await provider.allocate({ limits, network: "none" });
        ids.add(lease.id);
        try {
          await provider.reset(lease.id, task.workspace);
          if (asRoot) uids.add(provider.uidOf(lease.id));
          // As the oracle run does (tasks/oracle.ts): the solution mounted read-only at /solution.
          await provider.exec(lease.id, "bash /solution/solve.sh", {
            phase: "oracle",
            readOnly: [{ at: "/solution", files: task.solution! }],
          });
          const verdict = await provider.evaluate(lease.id, {
            files: task.tests,
            command: task.verifier.command,
            timeoutSeconds: task.verifier.timeoutSeconds,
            env: task.verifier.env,
          });
          if (verdict.reward !== null && verdict.reward >= 1) passed++;
        } finally {
          await provider.close(lease.id);
        }
        episodes++;
        episodeMs.push(performance.now() - t0);
      }),
    );
    waves++;
    checkLeaks(`after wave ${waves}`);
  } while (Date.now() < end);
  checkLeaks("at the end");
  console.log(
    `soak: ${episodes} episodes in ${waves} waves of ${args.concurrency} over ${args.seconds} s; verifier passed ${passed}/${episodes}; episode p50 ${pct(episodeMs, 0.5).toFixed(0)} ms, p95 ${pct(episodeMs, 0.95).toFixed(0)} ms`,
  );
  console.log(
    leaks.length ? `LEAKS (${leaks.length}):\n${leaks.slice(0, 20).join("\n")}` : "no leaked process, mount or file",
  );
  rmSync(sandboxRoot, { recursive: true, force: true });
  if (existsSync(sandboxRoot)) console.log(`could not remove ${sandboxRoot}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
