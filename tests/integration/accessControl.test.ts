// Table-driven access control: every REST route and every tRPC procedure × every role and key scope.
// The tables come from the route table and the router itself, so a new route is covered automatically.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../server/gateway/rest/table";
import { appRouter } from "../../server/gateway/trpc/root";
import type { ProcedureMeta } from "../../server/gateway/trpc/trpc";
import { permissions, type Permission, type Principal } from "../../server/access/principal";
import { startApiServer } from "../helpers/apiServer";
import { login, makeKey, makeUser } from "../helpers/fixtures";

interface Caller {
  name: string;
  headers: Record<string, string>;
  perms: Set<Permission> | null; // null = anonymous
}

let server: Awaited<ReturnType<typeof startApiServer>>;
const callers: Caller[] = [];

const keyPrincipal = (scopes: ("proxy" | "read" | "write" | "admin")[]): Principal => ({
  kind: "apiKey",
  keyId: "",
  prefix: "",
  scopes,
  experimentId: null,
  runId: null,
  createdById: null,
});

beforeAll(async () => {
  server = await startApiServer();
  callers.push({ name: "anonymous", headers: {}, perms: null });
  for (const role of ["ADMIN", "REVIEWER", "VIEWER"] as const) {
    const u = await makeUser(role);
    const cookie = await login(server.url, u.email, u.password);
    callers.push({
      name: `user:${role}`,
      headers: { cookie, origin: server.url },
      perms: permissions({ kind: "user", userId: "", email: "", role }),
    });
  }
  for (const scope of ["proxy", "read", "write", "admin"] as const) {
    callers.push({
      name: `key:${scope}`,
      headers: { authorization: `Bearer ${await makeKey([scope])}` },
      perms: permissions(keyPrincipal([scope])),
    });
  }
});
afterAll(() => server.close());

function expected(caller: Caller, needed: Permission | "authenticated"): "allow" | 401 | 403 {
  if (!caller.perms) return 401;
  if (needed === "authenticated") return "allow";
  return caller.perms.has(needed) ? "allow" : 403;
}

describe("REST access control", () => {
  it("allows or denies every route for every role and scope as its permission says", async () => {
    expect(routes.length).toBeGreaterThan(15);
    const mismatches: string[] = [];
    for (const r of routes) {
      const path = `/api/v1${r.path.replace(/:(\w+)/g, "does-not-exist")}`;
      for (const c of callers) {
        const res = await fetch(`${server.url}${path}`, {
          method: r.method,
          headers: {
            ...c.headers,
            ...(r.method === "GET" || r.method === "DELETE" ? {} : { "content-type": "application/json" }),
          },
          body: r.method === "GET" || r.method === "DELETE" ? undefined : "{}",
        });
        const want = expected(c, r.permission);
        const ok = want === "allow" ? res.status !== 401 && res.status !== 403 : res.status === want;
        if (!ok) mismatches.push(`${r.method} ${r.path} as ${c.name}: got ${res.status}, want ${want}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});

describe("tRPC access control", () => {
  it("allows or denies every procedure for every role and scope as its meta says", async () => {
    const procedures = Object.entries(
      appRouter._def.procedures as unknown as Record<string, { _def: { type: string; meta?: ProcedureMeta } }>,
    );
    expect(procedures.length).toBeGreaterThan(10);
    const mismatches: string[] = [];
    for (const [name, proc] of procedures) {
      const needed = proc._def.meta?.permission;
      if (!needed) {
        mismatches.push(`${name} declares no permission`);
        continue;
      }
      for (const c of callers) {
        const isQuery = proc._def.type === "query";
        const url = `${server.url}/api/trpc/${name}${isQuery ? `?input=${encodeURIComponent("{}")}` : ""}`;
        const res = await fetch(url, {
          method: isQuery ? "GET" : "POST",
          headers: { ...c.headers, ...(isQuery ? {} : { "content-type": "application/json" }) },
          body: isQuery ? undefined : "{}",
        });
        const want = expected(c, needed);
        const ok = want === "allow" ? res.status !== 401 && res.status !== 403 : res.status === want;
        if (!ok) mismatches.push(`${name} as ${c.name}: got ${res.status}, want ${want}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
