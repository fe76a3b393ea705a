// Resolves the caller from a Fetch request: a Bearer API key, else the UI session cookie.
import { bearerToken, verifyApiKey } from "../access/apiKeys";
import type { Principal } from "../access/principal";
import { principalFromSessionCookie } from "../access/session";
import { appError, unauthorized } from "../platform/errors";

export interface RequestContext {
  principal: Principal | null;
  /** True when the principal came from the cookie: state-changing requests then need a same-origin check. */
  viaCookie: boolean;
  req: Request;
}

export async function resolveContext(req: Request): Promise<RequestContext> {
  const auth = req.headers.get("authorization");
  if (auth) {
    const token = bearerToken(auth);
    const principal = token ? await verifyApiKey(token) : null;
    // A presented but invalid credential is an error, never a silent fallback to the cookie.
    if (!principal) throw unauthorized("Invalid API key");
    return { principal, viaCookie: false, req };
  }
  const principal = await principalFromSessionCookie(req.headers.get("cookie"));
  return { principal, viaCookie: !!principal, req };
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF defence for cookie-authenticated writes: the cookie is SameSite=Lax, and the request must come
 * from our own origin (Origin or Referer), and a POST must carry a JSON body or our custom header, which
 * cross-site forms cannot send without a CORS preflight we never grant.
 */
export function assertSameOrigin(ctx: RequestContext): void {
  if (!ctx.viaCookie || SAFE_METHODS.has(ctx.req.method)) return;
  const host = ctx.req.headers.get("x-forwarded-host") ?? ctx.req.headers.get("host");
  const origin = ctx.req.headers.get("origin") ?? ctx.req.headers.get("referer");
  if (origin && host) {
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      throw appError("cross_origin", "Malformed Origin header");
    }
    if (originHost !== host) throw appError("cross_origin", "Cross-site request refused (CSRF protection)");
  }
  // Only POST is a "simple" cross-site method; PATCH/PUT/DELETE always need a CORS preflight.
  const ct = ctx.req.headers.get("content-type") ?? "";
  if (ctx.req.method === "POST" && !ct.includes("application/json") && !ctx.req.headers.get("x-ocrl-csrf")) {
    throw appError("cross_origin", "State-changing requests must send JSON (CSRF protection)");
  }
}
