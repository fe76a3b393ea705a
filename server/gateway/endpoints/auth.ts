// Sign-in and sign-out for the console: the sealed session cookie (access/session.ts) over the credential
// check of the users service.
import { clearSessionCookie, endSessions, sealSession, sessionCookie } from "../../access/session";
import { env, settings } from "../../platform/env";
import { AppError, fromZod } from "../../platform/errors";
import { FailureBackoff, hitRateLimit, rateLimitHeaders } from "../../platform/rateLimit";
import { clientAddress } from "../../platform/clientAddress";
import { LoginInput } from "../../users/schemas";
import { authenticate } from "../../users/service";
import { errorResponse, reasonError } from "../httpErrors";
import { BODY_LIMITS, readCappedJson } from "../body";

let backoff: FailureBackoff | null = null;
function accountBackoff(): FailureBackoff {
  const web = settings("web");
  return (backoff ??= new FailureBackoff({
    bucket: "login",
    free: web.LOGIN_FREE_FAILURES,
    maxSeconds: web.LOGIN_BACKOFF_MAX_S,
  }));
}

export async function login(req: Request): Promise<Response> {
  try {
    const web = settings("web");
    // JSON only: a cross-site form can send text/plain or urlencoded without a preflight (login CSRF: the
    // victim signed into the attacker's account), but not application/json.
    const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json")
      return reasonError("unsupported_media_type", "Sign-in takes a JSON body (Content-Type: application/json)");
    // One capped read before anything else: an unauthenticated caller never gets more than 4 KB buffered.
    const json = await readCappedJson(req, BODY_LIMITS.login, "Sign-in").catch((e: unknown) => {
      if (e instanceof AppError && e.code === "PAYLOAD_TOO_LARGE") throw e;
      return {};
    });
    const body = (json && typeof json === "object" ? json : {}) as { email?: unknown };
    // Per address *and* account: guessing one account's password is slowed down without letting one busy
    // address (a NAT, a CI box) lock everyone else out. The address comes from the trusted proxies only
    // (TRUSTED_PROXY_HOPS): a client-written X-Forwarded-For never gives it a fresh budget.
    const ip = clientAddress(req.headers.get("x-forwarded-for"), null, env().TRUSTED_PROXY_HOPS);
    const email = typeof body.email === "string" ? body.email.toLowerCase() : "";
    const limited = await hitRateLimit("login", `${ip}|${email}`, web.LOGIN_RATE_LIMIT_PER_MIN);
    if (!limited.allowed) {
      return reasonError(
        "sign_in_throttled",
        `Too many sign-in attempts; retry in ${limited.resetSeconds} s`,
        rateLimitHeaders(limited),
      );
    }
    // Per account, whatever the address: each failure past the free ones doubles the wait before the next try.
    const wait = await accountBackoff().waitSeconds(email);
    if (wait > 0) {
      return reasonError("sign_in_throttled", `Too many failed sign-ins for this account; retry in ${wait} s`, {
        "Retry-After": String(wait),
      });
    }
    const parsed = LoginInput.safeParse(json);
    if (!parsed.success) throw fromZod(parsed.error, "Invalid login");
    const user = await authenticate(parsed.data.email, parsed.data.password).catch(async (e: unknown) => {
      if (e instanceof AppError && e.code === "UNAUTHORIZED") await accountBackoff().failed(email);
      throw e;
    });
    await accountBackoff().succeeded(email);
    // From the operator's PUBLIC_URL, never from a client-written X-Forwarded-Proto.
    const publicUrl = web.PUBLIC_URL;
    const secure = publicUrl ? publicUrl.startsWith("https:") : new URL(req.url).protocol === "https:";
    return Response.json({ user }, { headers: { "set-cookie": sessionCookie(await sealSession(user.id), secure) } });
  } catch (err) {
    return errorResponse(err);
  }
}

/** Ends every session of the signed-in user (a copied cookie stops working too), then clears the cookie. */
export async function logout(req: Request): Promise<Response> {
  await endSessions(req.headers.get("cookie"));
  return Response.json({ ok: true }, { headers: { "set-cookie": clearSessionCookie() } });
}
