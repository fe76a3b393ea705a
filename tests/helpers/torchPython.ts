// The Python interpreter that can import torch (Debian's python3-torch lives in /usr/bin/python3, which a
// pyenv or venv python3 earlier on PATH does not see), or null: tests that need it are then reported skipped.
import { spawnSync } from "node:child_process";

let found: string | null | undefined;

export function torchPython(): string | null {
  if (found !== undefined) return found;
  found = null;
  for (const candidate of ["/usr/bin/python3", "python3"]) {
    const probe = spawnSync(candidate, ["-c", "import torch"], { stdio: "ignore", timeout: 60_000 });
    if (probe.status === 0) {
      found = candidate;
      break;
    }
  }
  return found;
}
