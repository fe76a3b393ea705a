#!/usr/bin/env node
// `npm start`: works on a fresh machine. Plain Node (no dependencies) so it can run before `npm install`;
// then hands over to the TypeScript launcher (scripts/launch.ts).
import { spawn } from "node:child_process";
import { ensureDeps } from "./lib/ensure-deps.mjs";

const root = new URL("..", import.meta.url).pathname;
ensureDeps(root);
// Plain node with the tsx loader, not the tsx CLI: the CLI SIGKILLs its child ~30 ms after relaying a signal,
// which could cut the launcher's orderly shutdown short.
const child = spawn(process.execPath, ["--import", "tsx", `${root}scripts/launch.ts`, ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
});
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
