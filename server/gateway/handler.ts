// The whole /api surface as one Fetch handler: Next's catch-all route and the test server both call it,
// so tests drive real HTTP through exactly the code that production serves.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "./trpc/root";
import { TRPCError } from "@trpc/server";
import { resolveContext, type RequestContext } from "./context";
import { BODY_LIMITS, readCapped, withBody } from "./body";
import { AppError } from "../platform/errors";
import { errorResponse, reasonError } from "./httpErrors";
import { dispatchRest } from "./rest/dispatch";
import { rawEndpoint } from "./raw";
import { env, settings } from "../platform/env";
import { bearerToken, verifyApiKey } from "../access/apiKeys";
import { clientAddress } from "../platform/clientAddress";
import { callerIdentity, hitRateLimit, rateLimitHeaders } from "../platform/rateLimit";
import { TRPC_MAX_BATCH } from "./trpc/limits";

/**
 * Whose budget a request spends: a bearer counts against its key only once the key verifies (an HMAC, cached);
 * an unverified bearer spends its client address's budget. Keying on the token's prefix let anyone who knows a
 * prefix (viewers see them) exhaust that key's budget with junk secrets.
 */
async function budgetOf(req: Request): Promise<string> {
  const token = bearerToken(req.headers.get("authorization"));
  if (token) {
    const p = await verifyApiKey(token).catch(() => null);
    if (p?.kind === "apiKey") return `key:${p.keyId}`;
    return `unverified:${clientAddress(req.headers.get("x-forwarded-for"), null, env().TRUSTED_PROXY_HOPS)}`;
  }
  return callerIdentity(req);
}

/** Per-caller limit on the API surfaces; every answer carries the X-RateLimit-* headers. */
async function limited(req: Request, serve: () => Promise<Response>): Promise<Response> {
  const decision = await hitRateLimit("api", await budgetOf(req), settings("web").API_RATE_LIMIT_PER_MIN);
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    return reasonError(
      "rate_limited",
      `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.resetSeconds} s`,
      headers,
    );
  }
  const res = await serve();
  const out = new Response(res.body, res);
  for (const [k, v] of Object.entries(headers)) out.headers.set(k, v);
  return out;
}

/**
 * tRPC behind the same body cap as every other entry point: the caller is resolved first, so an anonymous
 * body is cut off at the login limit and only a signed-in caller may send an upload-sized one. An invalid
 * bearer is the caller's fault (401), not a server error.
 */
async function trpc(req: Request): Promise<Response> {
  try {
    let ctx: RequestContext | null = null;
    let authError: AppError | null = null;
    try {
      ctx = await resolveContext(req);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== "UNAUTHORIZED") throw err;
      authError = err;
    }
    const limit = ctx?.principal ? BODY_LIMITS.trpc : BODY_LIMITS.login;
    const capped = withBody(req, await readCapped(req, limit, "tRPC"));
    return await fetchRequestHandler({
      endpoint: "/api/trpc",
      req: capped,
      router: appRouter,
      // One HTTP request counts once against the rate limit: a batch may not run an unbounded number of
      // procedures (the console's client batches at most TRPC_MAX_BATCH too).
      maxBatchSize: TRPC_MAX_BATCH,
      createContext: () => {
        if (!ctx) throw new TRPCError({ code: "UNAUTHORIZED", message: authError?.message ?? "Unauthorized" });
        return Promise.resolve({ ...ctx, req: capped });
      },
      onError({ error, path: p }) {
        if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[trpc] ${p}:`, error.cause ?? error);
      },
    });
  } catch (err) {
    return errorResponse(err);
  }
}

export async function handleApi(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const path = url.pathname;
  const raw = rawEndpoint(req.method, path);
  // Export and import are heavy: they spend the caller's API budget like every REST call.
  if (raw) return /^\/api\/(export|import)\//.test(raw.path) ? limited(req, () => raw.serve(req)) : raw.serve(req);
  if (path.startsWith("/api/trpc/") || path === "/api/trpc") return limited(req, () => trpc(req));
  if (path.startsWith("/api/v1/") || path === "/api/v1")
    return limited(req, () => dispatchRest(req, path.slice("/api/v1".length) || "/"));
  return reasonError("route_not_found", `No API route ${path}`);
}
