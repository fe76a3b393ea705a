// The console's session cookie name and the one Cookie-header reader, shared by the session code (access/)
// and the rate limiter (here, below it). The proxy and workers run without Next, so no framework helper.
export const SESSION_COOKIE = "ocrl_session";

export function readCookie(cookieHeader: string | null, name: string): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return null;
}
