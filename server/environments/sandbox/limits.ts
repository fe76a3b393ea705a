// What a sandbox may use. The defaults follow upstream's tool sandboxes where they state one (ReTool's
// tool_sandbox.py: 4 GB address space, 120 s per call, observations cut at 1,024 chars), tightened for a
// 2-core machine; an Environment stores its own values.
import { z } from "zod";

export const sandboxLimitsSchema = z.object({
  /** CPU seconds per command (RLIMIT_CPU). */
  cpuSeconds: z.number().int().min(1).max(3600).default(30),
  /** Address space per process, in MiB (RLIMIT_AS). */
  memoryMb: z.number().int().min(32).max(65_536).default(1024),
  /** Processes (and threads) the sandbox may run at once, its command included (RLIMIT_NPROC on its own uid). */
  pids: z.number().int().min(1).max(4096).default(64),
  /** Largest file a command may write, in MiB (RLIMIT_FSIZE). */
  fileSizeMb: z.number().int().min(1).max(16_384).default(64),
  /** Size of the private /tmp (a tmpfs, counted in memory, not in RLIMIT_AS), in MiB. */
  tmpMb: z.number().int().min(1).max(4096).default(64),
  /** Wall-clock time of one command; the whole sandbox is killed at it. */
  wallSeconds: z.number().positive().max(3600).default(120),
  /** Bytes of stdout and of stderr kept per command; the rest is counted and dropped. */
  outputBytes: z
    .number()
    .int()
    .min(64)
    .max(16 * 1024 * 1024)
    .default(16 * 1024),
});
export type SandboxLimits = z.output<typeof sandboxLimitsSchema>;
export type SandboxLimitsInput = z.input<typeof sandboxLimitsSchema>;

/**
 * `none`: no network namespace shared with the host, so neither loopback services nor the internet are
 * reachable. Egress through an allowlist proxy is a later policy; a provider refuses a policy it lacks.
 */
export const networkPolicySchema = z.enum(["none"]);
export type NetworkPolicy = z.infer<typeof networkPolicySchema>;
