// UI login sessions: an iron-session sealed, HttpOnly cookie holding the user id and the user's session
// version. The user row is re-read on every request, so disabling a user or changing a role takes effect
// immediately; signing out or changing the password bumps the version, which ends every cookie issued
// before (a copied cookie included), on every device.
import { readCookie, SESSION_COOKIE } from "../platform/cookies";
import { sealData, unsealData } from "iron-session";
import { db } from "../platform/db/client";
import { env } from "../platform/env";
import type { Principal } from "./principal";

const TTL_SECONDS = 7 * 24 * 3600;

interface SessionData {
  userId: string;
  /** users.sessionVersion when the cookie was issued */
  v: number;
}

export async function sealSession(userId: string): Promise<string> {
  const { sessionVersion } = await db().user.findUniqueOrThrow({
    where: { id: userId },
    select: { sessionVersion: true },
  });
  return sealData({ userId, v: sessionVersion } satisfies SessionData, {
    password: env().SECRET_KEY,
    ttl: TTL_SECONDS,
  });
}

export function sessionCookie(value: string, secure: boolean): string {
  const parts = [`${SESSION_COOKIE}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${TTL_SECONDS}`];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

export function clearSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
}

async function readSession(cookieHeader: string | null): Promise<SessionData | null> {
  const sealed = readCookie(cookieHeader, SESSION_COOKIE);
  if (!sealed) return null;
  let data: Partial<SessionData>;
  try {
    data = await unsealData<SessionData>(sealed, { password: env().SECRET_KEY, ttl: TTL_SECONDS });
  } catch {
    return null;
  }
  // Cookies sealed before session versions existed carry no `v`: they end too.
  return typeof data.userId === "string" && typeof data.v === "number" ? { userId: data.userId, v: data.v } : null;
}

export async function principalFromSessionCookie(cookieHeader: string | null): Promise<Principal | null> {
  const data = await readSession(cookieHeader);
  if (!data) return null;
  const user = await db().user.findUnique({ where: { id: data.userId } });
  if (!user || user.disabledAt || user.sessionVersion !== data.v) return null;
  return { kind: "user", userId: user.id, email: user.email, role: user.role };
}

/** Sign-out: ends this user's sessions (the cookie presented and every copy or sibling of it). */
export async function endSessions(cookieHeader: string | null): Promise<void> {
  const data = await readSession(cookieHeader);
  if (!data) return;
  // Only a still-valid cookie may end the others, so a stale one cannot sign a user out again and again.
  await db().user.updateMany({
    where: { id: data.userId, sessionVersion: data.v },
    data: { sessionVersion: { increment: 1 } },
  });
}
