// The whole /api surface as one Fetch handler: Next's catch-all route and the test server both call it,
// so tests drive real HTTP through exactly the code that production serves.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "./trpc/root";
import { resolveContext } from "./context";
import { errorResponse, jsonError } from "./httpErrors";
import { dispatchRest } from "./rest/dispatch";
import { rawEndpoint } from "./raw";
import { settings } from "../platform/env";
import { callerIdentity, hitRateLimit, rateLimitHeaders } from "../platform/rateLimit";

/** Per-caller limit on the API surfaces; every answer carries the X-RateLimit-* headers. */
async function limited(req: Request, serve: () => Promise<Response>): Promise<Response> {
  const decision = await hitRateLimit("api", callerIdentity(req), settings("web").API_RATE_LIMIT_PER_MIN);
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    return jsonError(
      429,
      "TOO_MANY_REQUESTS",
      `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.resetSeconds} s`,
      [],
      headers,
    );
  }
  const res = await serve();
  const out = new Response(res.body, res);
  for (const [k, v] of Object.entries(headers)) out.headers.set(k, v);
  return out;
}

export async function handleApi(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const path = url.pathname;
  const raw = rawEndpoint(req.method, path);
  if (raw) return raw.serve(req);
  if (path.startsWith("/api/trpc/") || path === "/api/trpc") {
    return limited(req, () =>
      fetchRequestHandler({
        endpoint: "/api/trpc",
        req,
        router: appRouter,
        createContext: async () => resolveContext(req),
        onError({ error, path: p }) {
          if (error.code === "INTERNAL_SERVER_ERROR") console.error(`[trpc] ${p}:`, error.cause ?? error);
        },
      }).catch(errorResponse),
    );
  }
  if (path.startsWith("/api/v1/") || path === "/api/v1")
    return limited(req, () => dispatchRest(req, path.slice("/api/v1".length) || "/"));
  return jsonError(404, "NOT_FOUND", `No API route ${path}`);
}
