// The local-bwrap sandbox on real bubblewrap: no network, no write outside the workspace, rlimits that stop a
// fork bomb and a memory hog, a wall clock that kills a command with all its children, truncated output,
// and nothing left behind after close (no live process: an orphaned namespace init may linger as a zombie
// until the host reaps it). Each limit is also shown not to bind where it should not (a control
// run with a looser limit or outside the sandbox), so a sandbox that stopped enforcing fails here.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LocalBwrapProvider } from "../../../server/environments/sandbox/bwrap";
import { textFile } from "../../../server/environments/sandbox/files";
import { sandboxLimitsSchema, type SandboxLimitsInput } from "../../../server/environments/sandbox/limits";
import { pidsOfUid } from "../../../server/environments/sandbox/processes";
import { waitFor } from "../../helpers/waitFor";

const root = mkdtempSync(path.join(tmpdir(), "ocrl-sbx-test-"));
const provider = new LocalBwrapProvider({
  root,
  bwrap: "bwrap",
  uidBase: 210_000 + (process.pid % 1000) * 8,
  uidCount: 8,
});
const availability = await provider.available();
const asRoot = process.getuid?.() === 0;

afterAll(async () => {
  for (const l of provider.list()) await provider.close(l.id);
  rmSync(root, { recursive: true, force: true });
});

async function lease(limits: SandboxLimitsInput = {}) {
  const l = await provider.allocate({ limits: sandboxLimitsSchema.parse(limits), network: "none" });
  await provider.reset(l.id, [textFile("hello.txt", "hi\n")]);
  return l.id;
}

/** Pids whose command line carries `marker` (works as root and as a normal user). */
function pidsWithMarker(marker: string): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.skipIf(!availability.ok)(
  `local-bwrap sandbox${availability.ok ? "" : ` (skipped: ${availability.reason})`}`,
  () => {
    it("has no network: loopback services of the host and public addresses are unreachable", async () => {
      let accepted = 0;
      const server = net.createServer((s) => {
        accepted++;
        s.end();
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const port = (server.address() as net.AddressInfo).port;
      try {
        const connect = (host: string) => `exec 3<>/dev/tcp/${host}/${port === 0 ? 80 : port} && echo CONNECTED`;
        // Control: the same command on the host reaches the server.
        const host = spawnSync("/bin/bash", ["-c", connect("127.0.0.1")], { encoding: "utf8" });
        expect(host.stdout).toContain("CONNECTED");
        await new Promise((r) => setTimeout(r, 50));
        expect(accepted).toBe(1);

        const id = await lease();
        const loop = await provider.exec(id, connect("127.0.0.1"));
        expect(loop.stdout).not.toContain("CONNECTED");
        expect(loop.exitCode).not.toBe(0);
        const pub = await provider.exec(id, "exec 3<>/dev/tcp/1.1.1.1/80 && echo CONNECTED");
        expect(pub.stdout).not.toContain("CONNECTED");
        expect(pub.stderr).toMatch(/Network is unreachable|Cannot assign requested address/);
        expect(accepted).toBe(1);
        await provider.close(id);
      } finally {
        server.close();
      }
    });

    it("writes only to its workspace: system folders are read-only and /tmp is private", async () => {
      const id = await lease();
      const marker = `ocrl-marker-${process.pid}-${Date.now()}`;
      const r = await provider.exec(
        id,
        [
          `for p in /usr/${marker} /etc/${marker} /${marker} /app/../${marker} /proc/${marker}; do`,
          `  if touch "$p" 2>/dev/null; then echo "WROTE $p"; else echo "DENIED $p"; fi`,
          "done",
          `echo inside > /app/${marker} && echo "WROTE /app"`,
          `echo tmp > /tmp/${marker} && echo "WROTE /tmp"`,
          "cat /app/hello.txt",
        ].join("\n"),
      );
      expect(r.stdout).not.toMatch(/WROTE \/(usr|etc|proc|ocrl|app\/\.\.)/);
      expect(r.stdout.match(/DENIED/g)).toHaveLength(5);
      expect(r.stdout).toContain("WROTE /app");
      expect(r.stdout).toContain("WROTE /tmp");
      expect(r.stdout).toContain("hi");
      // The workspace write landed in the lease's folder; nothing else appeared on the host.
      expect(readFileSync(path.join(provider.hostDir(id), "app", marker), "utf8")).toBe("inside\n");
      for (const p of [`/usr/${marker}`, `/etc/${marker}`, `/${marker}`, path.join(tmpdir(), marker)])
        expect(existsSync(p)).toBe(false);
      await provider.close(id);
    });

    it("stops a fork bomb at the pids limit (a looser limit lets it go further)", async () => {
      const bomb = [
        "python3 - <<'EOF'",
        "import os, time",
        "n = 0",
        "try:",
        "    while True:",
        "        if os.fork() == 0:",
        "            time.sleep(600); os._exit(0)",
        "        n += 1",
        "except OSError as e:",
        "    print('FORKED', n, e.errno)",
        "EOF",
      ].join("\n");
      const tight = await lease({ pids: 12 });
      const a = await provider.exec(tight, bomb);
      const [, forkedTight, errno] = /FORKED (\d+) (\d+)/.exec(a.stdout) ?? [];
      expect(Number(errno)).toBe(11); // EAGAIN
      expect(Number(forkedTight)).toBeLessThan(12);
      const loose = await lease({ pids: 40 });
      const b = await provider.exec(loose, bomb);
      const [, forkedLoose] = /FORKED (\d+)/.exec(b.stdout) ?? [];
      expect(Number(forkedLoose)).toBeGreaterThan(Number(forkedTight) + 20);
      // The sleeping children died with the sandbox's pid namespace.
      if (asRoot) {
        expect(pidsOfUid(provider.uidOf(tight))).toEqual([]);
        expect(pidsOfUid(provider.uidOf(loose))).toEqual([]);
      }
      await provider.close(tight);
      await provider.close(loose);
    });

    it("stops a memory hog at the address-space limit (a small allocation still works)", async () => {
      const id = await lease({ memoryMb: 128 });
      const alloc = (mb: number) => `python3 -c "x = bytearray(${mb} * 1024 * 1024); print('ALLOCATED')"`;
      const small = await provider.exec(id, alloc(16));
      expect(small.stdout).toContain("ALLOCATED");
      const hog = await provider.exec(id, alloc(512));
      expect(hog.stdout).not.toContain("ALLOCATED");
      expect(hog.stderr).toContain("MemoryError");
      expect(hog.exitCode).not.toBe(0);
      await provider.close(id);
    });

    it("stops CPU burn at the CPU limit and big files at the file-size limit", async () => {
      const id = await lease({ cpuSeconds: 1, fileSizeMb: 1, wallSeconds: 60 });
      const burn = await provider.exec(id, "while :; do :; done");
      expect(burn.timedOut).toBe(false);
      expect(burn.exitCode).not.toBe(0);
      const big = await provider.exec(id, "head -c 2097152 /dev/zero > /app/big; echo rc=$?; stat -c %s /app/big");
      expect(big.stdout).toContain("rc=153"); // 128 + SIGXFSZ
      expect(big.stdout).toContain("1048576");
      const ok = await provider.exec(id, "head -c 4096 /dev/zero > /app/small; echo rc=$?");
      expect(ok.stdout).toContain("rc=0");
      await provider.close(id);
    });

    it("kills an endless command and all its children at the wall-clock timeout", async () => {
      const id = await lease({ wallSeconds: 2 });
      const marker = String(900_000 + (process.pid % 90_000));
      const r = await provider.exec(
        id,
        `sleep ${marker} & (sleep ${marker}.5 &) ; setsid sleep ${marker}.25 & echo started; while :; do :; done`,
      );
      expect(r.timedOut).toBe(true);
      // bwrap reports its command's SIGKILL as 128 + 9 (or is itself killed, in the fallback path).
      expect(r.exitCode === 137 || r.signal === "SIGKILL").toBe(true);
      expect(r.stdout).toContain("started");
      expect(pidsWithMarker(`sleep\0${marker}`)).toEqual([]);
      if (asRoot) expect(pidsOfUid(provider.uidOf(id))).toEqual([]);
      // A command within the timeout still runs normally afterwards.
      const after = await provider.exec(id, "echo alive");
      expect(after.stdout).toBe("alive\n");
      await provider.close(id);
    });

    it("truncates 10 MB of output to the limit and counts every byte", async () => {
      const id = await lease({ outputBytes: 4096 });
      const r = await provider.exec(id, "head -c 10000000 /dev/zero | tr '\\0' x; head -c 10000000 /dev/zero >&2");
      expect(r.exitCode).toBe(0);
      expect(r.truncated).toBe(true);
      expect(r.stdoutBytes).toBe(10_000_000);
      expect(r.stderrBytes).toBe(10_000_000);
      expect(r.stdout).toBe("x".repeat(4096));
      expect(Buffer.byteLength(r.stderr)).toBe(4096);
      const small = await provider.exec(id, "echo short");
      expect(small.truncated).toBe(false);
      await provider.close(id);
    });

    it("keeps every command with the lease, and leaves nothing behind after close", async () => {
      const id = await lease();
      await provider.exec(id, "echo one");
      await provider.exec(id, "mkdir -p deep/er && echo two > deep/er/f && sleep 0.1");
      const info = provider.get(id);
      expect(info.commands.map((c) => c.command)).toEqual([
        "echo one",
        "mkdir -p deep/er && echo two > deep/er/f && sleep 0.1",
      ]);
      const dir = provider.hostDir(id);
      const uid = provider.uidOf(id);
      expect(existsSync(dir)).toBe(true);
      await provider.close(id);
      expect(existsSync(dir)).toBe(false);
      expect(readFileSync("/proc/self/mountinfo", "utf8")).not.toContain(id);
      if (asRoot) {
        expect(pidsOfUid(uid)).toEqual([]);
        expect(existsSync(path.join(root, ".uids", String(uid)))).toBe(false);
      }
      await expect(provider.exec(id, "echo again")).rejects.toThrow(/no lease/);
      expect(readdirSync(root)).not.toContain(id);
    });

    it("closed while a command and its background children run, leaves none of them (reset and close skip the process scan only between commands)", async () => {
      const id = await lease();
      const uid = provider.uidOf(id);
      const running = provider.exec(id, "sleep 61.25 & sleep 61.25 & wait");
      await waitFor("the command's background children", () => pidsWithMarker("61.25").length >= 2 || null);
      await provider.close(id);
      await running.catch(() => undefined);
      expect(pidsWithMarker("61.25")).toEqual([]);
      if (asRoot) expect(pidsOfUid(uid)).toEqual([]);
      expect(existsSync(path.join(root, id))).toBe(false);
      // A lease reset after a command ran starts from an empty workspace with nothing of the command alive.
      const again = await lease();
      await provider.exec(again, "sleep 0.05 && touch /app/old");
      await provider.reset(again, [textFile("new.txt", "fresh")]);
      if (asRoot) expect(pidsOfUid(provider.uidOf(again))).toEqual([]);
      expect(readdirSync(path.join(provider.hostDir(again), "app"))).toEqual(["new.txt"]);
      await provider.close(again);
    });

    it("follows the lease states: reset before exec, heartbeat keeps a lease, idle ones are reaped", async () => {
      const l = await provider.allocate({ limits: sandboxLimitsSchema.parse({}), network: "none" });
      expect(l.state).toBe("allocated");
      await expect(provider.exec(l.id, "true")).rejects.toThrow(/is allocated: exec is not allowed/);
      expect((await provider.reset(l.id, [])).state).toBe("ready");
      const other = await lease();
      await new Promise((r) => setTimeout(r, 5)); // so the heartbeat's millisecond is later than l's last use
      const beat = provider.heartbeat(other);
      // Reaped: leases unused for more than 0 ms as of the heartbeat's instant (a fixed clock, no race).
      const reaped = await provider.reapIdle(0, Date.parse(beat.lastUsedAt));
      expect(reaped).toContain(l.id);
      expect(reaped).not.toContain(other);
      await expect(provider.exec(l.id, "true")).rejects.toThrow(/no lease/);
      await provider.close(other);
      await provider.close(other); // closing twice is a no-op
    });

    it("runs a verifier with /tests it alone sees and reads the reward from /logs/verifier", async () => {
      const id = await lease();
      const hidden = await provider.exec(id, "ls /tests /logs 2>&1; echo planted > /app/reward.txt");
      expect(hidden.stdout).toMatch(/No such file or directory/);
      const verifier = {
        files: [
          textFile(
            "test.sh",
            "grep -q hi /app/hello.txt && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n",
          ),
        ],
        command: "bash /tests/test.sh",
        timeoutSeconds: 30,
      };
      const pass = await provider.evaluate(id, verifier);
      expect(pass).toMatchObject({ reward: 1, rewardFile: "reward.txt", error: null });
      await provider.exec(id, "echo bye > /app/hello.txt");
      const fail = await provider.evaluate(id, verifier);
      expect(fail.reward).toBe(0);
      // A verifier that links its reward file to a host file gets an error, not the file's content.
      const sneaky = await provider.evaluate(id, {
        ...verifier,
        files: [textFile("test.sh", "ln -s /etc/hostname /logs/verifier/reward.txt\n")],
      });
      expect(sneaky.reward).toBeNull();
      expect(sneaky.error).toMatch(/symbolic link/);
      expect(provider.get(id).commands.map((c) => c.phase)).toEqual([
        "agent",
        "verifier",
        "agent",
        "verifier",
        "verifier",
      ]);
      await provider.close(id);
    });
  },
);
