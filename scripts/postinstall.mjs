#!/usr/bin/env node
// postinstall: generate the Prisma client (server/platform/db/generated, not committed). Skipped when the
// prisma CLI is not installed — `npm ci --dry-run` runs this hook without installing anything.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const root = new URL("..", import.meta.url).pathname;
const cli = `${root}node_modules/.bin/prisma`;
if (!existsSync(cli)) {
  console.log("[postinstall] prisma is not installed here: skipping client generation");
  process.exit(0);
}
const r = spawnSync(cli, ["generate"], { cwd: root, stdio: "inherit" });
process.exit(r.status ?? 1);
