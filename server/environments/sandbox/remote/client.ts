// One POST to a pool, with its failure named: the pool is unreachable (refused, reset, timed out), it is
// full (terminal's 429 with a CapacityError code), the lease is unknown to it (reaped, or the pool restarted
// and lost its table), or it refused otherwise (400/500 with `error`).
import type { z } from "zod";
import { assertEgressAllowed, EgressRefusedError } from "../../../platform/egress";
import { answers, CAPACITY_CODES, CAPACITY_MESSAGES, UNKNOWN_LEASE, type PoolProtocol } from "./wire";

export type PoolFailureKind = "down" | "capacity" | "unknown_lease" | "refused" | "bad_answer";

export class PoolFailure extends Error {
  constructor(
    readonly kind: PoolFailureKind,
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = "PoolFailure";
  }
}

export async function poolPost<S extends z.ZodType>(
  protocol: PoolProtocol,
  url: string,
  path: string,
  body: Record<string, unknown>,
  schema: S,
  timeoutMs: number,
): Promise<z.output<S>> {
  let res: Response;
  let text: string;
  // A pool's URL is user-configured: the egress policy applies at every call, not only when it was saved.
  try {
    await assertEgressAllowed(url);
  } catch (e) {
    if (e instanceof EgressRefusedError)
      throw new PoolFailure("refused", `pool ${url} refused by the egress policy: ${e.message}`);
    throw e;
  }
  try {
    res = await fetch(`${url.replace(/\/+$/, "")}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
      // A redirect could point at an address the policy refuses: it is an answer, never followed.
      redirect: "manual",
    });
    text = await res.text();
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    throw new PoolFailure("down", `pool ${url} unreachable on ${path}: ${cause ?? (e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PoolFailure("bad_answer", `pool ${url}${path} answered ${res.status} with no JSON`);
  }
  // A refusal is `{ok: false, error[, code]}` and nothing else: swe's evaluate also says ok false when the
  // patch did not apply, with the outputs alongside, and that is an answer.
  const refusal = answers.refusal.safeParse(json);
  const bare = refusal.success && Object.keys(json as object).every((k) => ["ok", "error", "code"].includes(k));
  if (bare || !res.ok) {
    const error = refusal.success ? refusal.data.error : text.slice(0, 300);
    const code = refusal.success ? (refusal.data.code ?? null) : null;
    if (res.status === 429 && code && (CAPACITY_CODES as readonly string[]).includes(code))
      throw new PoolFailure("capacity", `pool ${url} is full (${code}): ${error}`, code);
    if (CAPACITY_MESSAGES[protocol].some((m) => error.startsWith(m)))
      throw new PoolFailure("capacity", `pool ${url} is full: ${error}`);
    if (error.includes(UNKNOWN_LEASE[protocol]))
      throw new PoolFailure("unknown_lease", `pool ${url} no longer holds the lease: ${error}`);
    throw new PoolFailure("refused", `pool ${url}${path} refused (${res.status}): ${error}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new PoolFailure("bad_answer", `pool ${url}${path} answered an unexpected shape: ${parsed.error.message}`);
  return parsed.data;
}
