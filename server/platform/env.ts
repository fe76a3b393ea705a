// Environment contract, validated once per process. Every process (web, workers, scripts) reads config here.
import { z } from "zod";

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().url("DATABASE_URL must be a postgres:// URL"),
  REDIS_URL: z.string().default("redis://127.0.0.1:6379"),
  /** Prefix for every Redis key and BullMQ queue, so test runs never touch a running instance. */
  REDIS_PREFIX: z.string().default("ocrl:"),
  /** 32+ chars; encrypts upstream credentials at rest and seals login cookies. */
  SECRET_KEY: z.string().min(32, "SECRET_KEY must be at least 32 characters"),
  WEB_PORT: z.coerce.number().int().positive().default(3000),
  PROXY_PORT: z.coerce.number().int().positive().default(30000),
  PUBLIC_URL: z.string().url().optional(),
  DATA_DIR: z.string().default(".data"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
});

export type Env = z.infer<typeof EnvSchema>;

let cached: Env | undefined;

export function env(): Env {
  if (!cached) {
    const parsed = EnvSchema.safeParse(process.env);
    if (!parsed.success) {
      const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
      throw new Error(`Invalid environment:\n${lines}`);
    }
    cached = parsed.data;
  }
  return cached;
}
