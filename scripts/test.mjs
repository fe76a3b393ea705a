#!/usr/bin/env node
// `npm test`: installs dependencies if needed, then runs scripts/test-run.ts (isolated DB + Redis prefix).
import { spawn } from "node:child_process";
import { ensureDeps } from "./lib/ensure-deps.mjs";

const root = new URL("..", import.meta.url).pathname;
ensureDeps(root);
const child = spawn(process.execPath, ["--import", "tsx", `${root}scripts/test-run.ts`, ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 1)));
