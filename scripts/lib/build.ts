// Rebuilds the Next app only when its inputs changed since the last build (hash of sources kept in .next).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const INPUTS = ["app", "server", "public", "next.config.js", "package-lock.json", "tsconfig.json"];
const SKIP = new Set(["node_modules", ".next", "generated"]);

function* files(p: string): Generator<string> {
  if (!existsSync(p)) return;
  if (statSync(p).isFile()) {
    yield p;
    return;
  }
  for (const e of readdirSync(p).sort()) if (!SKIP.has(e)) yield* files(path.join(p, e));
}

export function sourceHash(root: string): string {
  const h = createHash("sha256");
  for (const input of INPUTS) for (const f of files(path.join(root, input))) h.update(f).update(readFileSync(f));
  return h.digest("hex");
}

export function ensureWebBuild(root: string, log: (s: string) => void): void {
  const marker = path.join(root, ".next", "source-hash");
  const hash = sourceHash(root);
  if (existsSync(path.join(root, ".next", "BUILD_ID")) && existsSync(marker) && readFileSync(marker, "utf8") === hash)
    return;
  log("building the web app (next build)… this takes a minute or two on first start");
  const r = spawnSync(path.join(root, "node_modules", ".bin", "next"), ["build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (r.status !== 0) throw new Error("next build failed (see output above)");
  writeFileSync(marker, hash);
}
