// One Prisma client per process, on the pg driver adapter (no native engine download needed).
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client";
import { env } from "../env";

export type Db = PrismaClient;
export type { Prisma } from "./generated/client";

const globalForPrisma = globalThis as unknown as { prisma?: PrismaClient };

export function createPrisma(databaseUrl = env().DATABASE_URL): PrismaClient {
  const adapter = new PrismaPg({ connectionString: databaseUrl, max: 10 });
  return new PrismaClient({ adapter });
}

/** Lazily created so importing server code never opens a connection by itself. */
export function db(): PrismaClient {
  globalForPrisma.prisma ??= createPrisma();
  return globalForPrisma.prisma;
}
