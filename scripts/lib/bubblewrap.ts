// Bubblewrap runs the terminal environments' sandboxes (server/environments/sandbox/bwrap.ts). Like Redis it
// has no npm package, so `npm start` installs the OS package where that needs no password (root with
// apt-get, dnf or apk; NO_AUTO_INSTALL=1 opts out). Unlike Redis it is optional: without it the console
// runs, and the local-bwrap provider reports itself unavailable with the reason.
import { autoInstallDisabled, onPath, runInstaller, type Installer } from "./redis-install";

export function bubblewrapInstaller(isRoot: boolean, has: (cmd: string) => boolean): Installer | null {
  if (!isRoot) return null;
  if (has("apt-get")) {
    const env = { DEBIAN_FRONTEND: "noninteractive" };
    return {
      summary: "apt-get update && apt-get install -y bubblewrap",
      steps: [
        { cmd: "apt-get", args: ["update"], env, optional: true },
        { cmd: "apt-get", args: ["install", "-y", "bubblewrap"], env },
      ],
    };
  }
  if (has("dnf"))
    return { summary: "dnf install -y bubblewrap", steps: [{ cmd: "dnf", args: ["install", "-y", "bubblewrap"] }] };
  if (has("apk"))
    return {
      summary: "apk add --no-cache bubblewrap",
      steps: [{ cmd: "apk", args: ["add", "--no-cache", "bubblewrap"] }],
    };
  return null;
}

/** Makes sure `bwrap` is on PATH when it can; never fails the start. */
export function ensureBubblewrap(log: (s: string) => void): void {
  if (onPath("bwrap")) return;
  const installer = bubblewrapInstaller(process.getuid?.() === 0, (cmd) => onPath(cmd));
  const without = "terminal environments (local-bwrap sandboxes) stay unavailable until bubblewrap is installed";
  if (!installer) return log(`bubblewrap is not installed: ${without} (Debian/Ubuntu: apt-get install bubblewrap)`);
  if (autoInstallDisabled())
    return log(`bubblewrap is not installed and NO_AUTO_INSTALL is set: ${without} (\`${installer.summary}\`)`);
  log(`bubblewrap is not installed: installing it with \`${installer.summary}\` (NO_AUTO_INSTALL=1 skips this)`);
  const failed = runInstaller(installer);
  if (failed || !onPath("bwrap")) log(`installing bubblewrap failed${failed ? `: ${failed}` : ""}; ${without}`);
  else log("bubblewrap installed");
}
