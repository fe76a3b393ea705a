// The `docker` provider against a real container runtime (Docker or Podman, SANDBOX_CONTAINER_RUNTIME):
// the example Harbor task's oracle in a container of a stock image, the limits, and no network. Where no
// runtime works (this repository's CI and dev machine have none), the suite is reported as skipped with
// the provider's own reason.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ContainerProvider } from "../../../server/environments/sandbox/container";
import { sandboxLimitsSchema } from "../../../server/environments/sandbox/limits";
import { parseTasks } from "../../../server/environments/tasks/import";
import { runOracle } from "../../../server/environments/tasks/oracle";
import type { TerminalTask } from "../../../server/environments/tasks/spec";

const provider = new ContainerProvider();
const health = await provider.available();
if (!health.ok) console.warn(`[docker.test] skipped: ${health.reason}`);
const limits = sandboxLimitsSchema.parse({ wallSeconds: 60 });
// A stock image with bash; the runtime pulls it once.
const IMAGE = "debian:stable-slim";

describe.skipIf(!health.ok)("docker provider with a real runtime", () => {
  const [task] = parseTasks({
    format: "harbor",
    folder: path.resolve("examples/environments/terminal/count-errors"),
  }) as TerminalTask[];
  const inImage: TerminalTask = { ...task, container: { image: IMAGE, dockerfile: null } };

  it("verifies the example task's oracle in a container", { timeout: 600_000 }, async () => {
    const o = await runOracle(provider, inImage, limits, 1);
    expect(o.errors).toEqual([]);
    expect(o.status).toBe("verified");
    expect(provider.list()).toEqual([]);
  });

  it("gives the container no network and keeps its limits", { timeout: 600_000 }, async () => {
    const lease = await provider.allocate({ limits, network: "none", image: { ref: IMAGE } });
    try {
      await provider.reset(lease.id, []);
      const net = await provider.exec(lease.id, "exec 3<>/dev/tcp/1.1.1.1/53 && echo connected");
      expect(net.exitCode).not.toBe(0);
      expect(net.stdout).not.toContain("connected");
      const ifaces = await provider.exec(lease.id, "ls /sys/class/net");
      expect(ifaces.stdout.trim()).toBe("lo");
      const slow = await provider.exec(lease.id, "sleep 600", { timeoutSeconds: 2 });
      expect(slow.timedOut).toBe(true);
      const after = await provider.exec(lease.id, "cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^sleep$' || true");
      expect(after.stdout.trim()).toBe("0");
    } finally {
      await provider.close(lease.id);
    }
  });
});
