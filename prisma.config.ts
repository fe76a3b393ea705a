// Prisma CLI config. Migrations are *authored* against an in-process PGlite (the CLI cannot migrate
// through @prisma/adapter-pg: prisma/prisma column-type `name` bug); they are *applied* to real
// Postgres by server/platform/db/migrator.ts. The runtime uses @prisma/adapter-pg (server/platform/db/client.ts).
import path from "node:path";
import { defineConfig } from "prisma/config";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPGlite } from "pglite-prisma-adapter";

process.env.DATABASE_URL ??= "postgresql://localhost/unused-by-cli";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join("prisma", "schema.prisma"),
  migrations: { path: path.join("prisma", "migrations") },
  async adapter() {
    // pglite-prisma-adapter bundles its own copy of @prisma/driver-adapter-utils; the shapes match at runtime.
    return new PrismaPGlite(new PGlite()) as unknown as SqlMigrationAwareDriverAdapterFactory;
  },
});
