// Proxy settings from the environment (server/platform/env.ts holds the shared ones: PROXY_PORT, DATA_DIR, …).
import { z } from "zod";

const ProxyEnvSchema = z.object({
  /** Largest accepted request body (413 above it). OpenClaw sends ~50–60 KB; long sessions grow. */
  PROXY_MAX_BODY_BYTES: z.coerce.number().int().positive().default(8 * 1024 * 1024),
  /** Time to the upstream's response headers, and the longest pause between two stream chunks (504). */
  PROXY_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  /** Bound of the on-disk recording buffer used while Postgres is unreachable. */
  PROXY_BUFFER_MAX_BYTES: z.coerce.number().int().positive().default(1024 * 1024 * 1024),
  PROXY_HOST: z.string().default("0.0.0.0"),
  /** Chat requests per API key per minute (429 with Retry-After and X-RateLimit-* above it). */
  PROXY_RATE_LIMIT_PER_MIN: z.coerce.number().int().positive().default(6000),
  /** Most messages one request may carry (OpenClaw's long sessions stay in the hundreds). */
  PROXY_MAX_MESSAGES: z.coerce.number().int().positive().default(5000),
});

export type ProxyEnv = z.infer<typeof ProxyEnvSchema>;

export function proxyEnv(source: NodeJS.ProcessEnv = process.env): ProxyEnv {
  const parsed = ProxyEnvSchema.safeParse(source);
  if (!parsed.success) throw new Error(`Invalid proxy environment: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return parsed.data;
}
