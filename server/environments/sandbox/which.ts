// Finds an executable on PATH (or checks a given path), as a shell would, without running anything.
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

export function which(cmd: string): string | null {
  if (cmd.includes("/")) {
    try {
      accessSync(cmd, constants.X_OK);
      return cmd;
    } catch {
      return null;
    }
  }
  // turbopackIgnore: PATH is the host's at run time; the web build must not trace the project through it.
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(":")) {
    const p = path.join(/* turbopackIgnore: true */ dir || ".", cmd);
    try {
      accessSync(/* turbopackIgnore: true */ p, constants.X_OK);
      if (statSync(/* turbopackIgnore: true */ p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return null;
}
