// `npm run db:migrate:new -- <name>`: write a new migration from the change to prisma/schema.prisma since the
// last commit. (`prisma migrate dev` cannot be used: its PGlite shadow database rejects multi-statement
// migrations, and it cannot run through the pg adapter at all.) Review the SQL, add any hand-written parts
// (triggers, generated columns), then commit the schema and the migration together.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error("usage: npm run db:migrate:new -- <name in lower_snake_case>");
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, "..");
const before = path.join(mkdtempSync(path.join(tmpdir(), "schema-")), "schema.prisma");
writeFileSync(before, execFileSync("git", ["show", "HEAD:prisma/schema.prisma"], { cwd: root }));
const sql = execFileSync(
  path.join(root, "node_modules/.bin/prisma"),
  ["migrate", "diff", "--from-schema-datamodel", before, "--to-schema-datamodel", "prisma/schema.prisma", "--script"],
  { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
);
if (!sql.trim() || /^-- This is an empty migration/m.test(sql)) {
  console.error("prisma/schema.prisma has no change since the last commit: nothing to migrate.");
  process.exit(1);
}
// Migrations apply in name order: never sort before an existing one.
const latest =
  readdirSync(path.join(root, "prisma/migrations"))
    .map((d) => d.slice(0, 14))
    .filter((d) => /^\d{14}$/.test(d))
    .sort()
    .pop() ?? "0";
const now = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
const stamp = now > latest ? now : String(BigInt(latest) + 1n);
const dir = path.join(root, "prisma/migrations", `${stamp}_${name}`);
mkdirSync(dir);
writeFileSync(path.join(dir, "migration.sql"), sql);
console.log(`wrote ${path.relative(root, dir)}/migration.sql — review it, then commit it with the schema`);
