// The caller's address for throttling, from a configured number of trusted reverse proxies (TRUSTED_PROXY_HOPS).
// Each trusted proxy appends the address it received the request from to X-Forwarded-For, so the client is the
// hops-th entry from the right; everything left of it was written by the client and is never believed. With no
// trusted proxy the header is ignored: the socket's address when the server knows it, else "unknown" (Next's
// route handlers do not expose the socket, and Next keeps a client-sent X-Forwarded-For as it is).
export function clientAddress(
  forwardedFor: string | null | undefined,
  socketAddress: string | null | undefined,
  trustedHops: number,
): string {
  if (trustedHops <= 0) return socketAddress || "unknown";
  const hops = (forwardedFor ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  // Fewer entries than trusted proxies: the request did not come through all of them, so nothing is known.
  return hops.length >= trustedHops ? hops[hops.length - trustedHops]! : "unknown";
}
