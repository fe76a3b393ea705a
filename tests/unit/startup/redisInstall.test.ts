// Which package manager `npm start` may use to install Redis without asking for a password, and the opt-out.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { autoInstallDisabled, onPath, redisInstaller } from "../../../scripts/lib/redis-install";

const only =
  (...cmds: string[]) =>
  (cmd: string) =>
    cmds.includes(cmd);
const commands = (root: boolean, ...cmds: string[]) =>
  redisInstaller(root, only(...cmds))?.steps.map((s) => [s.cmd, ...s.args].join(" ")) ?? null;

describe("redisInstaller", () => {
  it("as root uses the OS package manager, apt-get first (with its package lists refreshed)", () => {
    expect(commands(true, "apt-get", "dnf", "apk", "brew")).toEqual([
      "apt-get update",
      "apt-get install -y redis-server",
    ]);
    expect(redisInstaller(true, only("apt-get"))!.steps.every((s) => s.env?.DEBIAN_FRONTEND === "noninteractive")).toBe(
      true,
    );
    expect(commands(true, "dnf")).toEqual(["dnf install -y redis"]);
    expect(commands(true, "apk")).toEqual(["apk add --no-cache redis"]);
  });

  it("as a normal user uses only Homebrew: the OS package managers would need sudo and so a password", () => {
    expect(commands(false, "brew", "apt-get")).toEqual(["brew install redis"]);
    expect(commands(false, "apt-get", "dnf", "apk")).toBeNull();
  });

  it("as root does not use Homebrew, which refuses to run as root", () => {
    expect(commands(true, "brew")).toBeNull();
  });
});

describe("autoInstallDisabled", () => {
  it("is on for NO_AUTO_INSTALL=1 and the like, off when unset, empty or 0", () => {
    for (const v of ["1", "true", "yes", " 1 "]) expect(autoInstallDisabled({ NO_AUTO_INSTALL: v }), v).toBe(true);
    for (const v of [undefined, "", "0", "false", "no"])
      expect(autoInstallDisabled({ NO_AUTO_INSTALL: v }), String(v)).toBe(false);
  });
});

describe("onPath", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ocrl-onpath-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("finds executable files only (a bind mount of /dev/null over a binary hides it)", () => {
    writeFileSync(path.join(dir, "tool"), "#!/bin/sh\n", { mode: 0o755 });
    writeFileSync(path.join(dir, "plain"), "", { mode: 0o644 });
    expect(onPath("tool", `/nonexistent:${dir}`)).toBe(true);
    expect(onPath("plain", dir)).toBe(false);
    expect(onPath("null", "/dev")).toBe(false);
    expect(onPath("missing", dir)).toBe(false);
  });
});
