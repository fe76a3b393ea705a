// UI login sessions: an iron-session sealed, HttpOnly cookie holding the user id. The user row is
// re-read on every request, so disabling a user or changing a role takes effect immediately.
import { sealData, unsealData } from "iron-session";
import { db } from "../platform/db/client";
import { env } from "../platform/env";
import type { Principal } from "./principal";

export const SESSION_COOKIE = "ocrl_session";
const TTL_SECONDS = 7 * 24 * 3600;

interface SessionData {
  userId: string;
}

export async function sealSession(userId: string): Promise<string> {
  return sealData({ userId } satisfies SessionData, { password: env().SECRET_KEY, ttl: TTL_SECONDS });
}

export function sessionCookie(value: string, secure: boolean): string {
  const parts = [`${SESSION_COOKIE}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${TTL_SECONDS}`];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

export function clearSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
}

export function readCookie(cookieHeader: string | null, name: string): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return null;
}

export async function principalFromSessionCookie(cookieHeader: string | null): Promise<Principal | null> {
  const sealed = readCookie(cookieHeader, SESSION_COOKIE);
  if (!sealed) return null;
  let data: Partial<SessionData>;
  try {
    data = await unsealData<SessionData>(sealed, { password: env().SECRET_KEY, ttl: TTL_SECONDS });
  } catch {
    return null;
  }
  if (!data.userId) return null;
  const user = await db().user.findUnique({ where: { id: data.userId } });
  if (!user || user.disabledAt) return null;
  return { kind: "user", userId: user.id, email: user.email, role: user.role };
}
