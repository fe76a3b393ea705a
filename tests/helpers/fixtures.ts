// Real users and keys in the test database, created through the same services the product uses.
import { randomBytes } from "node:crypto";
import { createUser } from "../../server/users/service";
import { createApiKey } from "../../server/apiKeys/service";
import type { Scope } from "../../server/access/principal";

export const uniq = (p = "t") => `${p}-${randomBytes(4).toString("hex")}`;

export async function makeUser(role: "ADMIN" | "REVIEWER" | "VIEWER") {
  const email = `${uniq(role.toLowerCase())}@example.test`;
  const password = `pw-${randomBytes(6).toString("hex")}`;
  const user = await createUser(null, { email, password, role });
  return { ...user, password };
}

export async function makeKey(scopes: Scope[], experimentId?: string) {
  const k = await createApiKey(null, { name: uniq("key"), scopes, experimentId });
  return k.key;
}

export async function login(baseUrl: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  const cookie = res.headers.get("set-cookie") ?? "";
  return cookie.split(";")[0]!;
}

export function api(baseUrl: string, auth: { bearer?: string; cookie?: string } = {}) {
  return async (method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = {};
    if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
    if (auth.cookie) {
      headers.cookie = auth.cookie;
      headers.origin = baseUrl;
    }
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: res.status, body: json as Record<string, unknown> & { error?: { code: string; message: string; issues: { path: string; message: string }[] } } };
  };
}
