// `npm start` installs bubblewrap as it installs Redis: as root with the system package manager, never
// with a password prompt; a normal user gets instructions (the start goes on without sandboxes).
import { describe, expect, it } from "vitest";
import { bubblewrapInstaller } from "../../../scripts/lib/bubblewrap";

const only =
  (...cmds: string[]) =>
  (c: string) =>
    cmds.includes(c);
const steps = (root: boolean, ...cmds: string[]) =>
  bubblewrapInstaller(root, only(...cmds))?.steps.map((s) => [s.cmd, ...s.args].join(" ")) ?? null;

describe("bubblewrapInstaller", () => {
  it("uses the root's package manager: apt-get (after an optional update), dnf, apk", () => {
    expect(steps(true, "apt-get", "dnf")).toEqual(["apt-get update", "apt-get install -y bubblewrap"]);
    expect(bubblewrapInstaller(true, only("apt-get"))!.steps[0].optional).toBe(true);
    expect(steps(true, "dnf")).toEqual(["dnf install -y bubblewrap"]);
    expect(steps(true, "apk")).toEqual(["apk add --no-cache bubblewrap"]);
  });

  it("installs nothing for a normal user or without a known package manager", () => {
    expect(steps(false, "apt-get", "brew")).toBeNull();
    expect(steps(true, "brew")).toBeNull();
  });
});
