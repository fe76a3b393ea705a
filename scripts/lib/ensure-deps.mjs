// Installs dependencies when node_modules is missing or older than package.json / package-lock.json.
// `npm install`, not `npm ci`: on a working copy it keeps what is installed and adds what package.json gained (CI, on a
// clean clone, uses `npm ci` to prove the lock file).
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";

export function ensureDeps(root) {
  const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);
  const installed = `${root}node_modules/.package-lock.json`;
  const stale =
    !existsSync(installed) ||
    mtime(`${root}package-lock.json`) > mtime(installed) ||
    mtime(`${root}package.json`) > mtime(installed);
  if (!stale) return;
  console.log("[deps] installing dependencies (npm install)…");
  const r = spawnSync("npm", ["install", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
