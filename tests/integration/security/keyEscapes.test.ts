// A key never escapes its binding or outlives its creator: a bound key cannot administer users or keys or clone
// out of its experiment, a key mints nothing broader than itself, and the keys a user created stop working when
// that user is disabled or demoted (and work again when restored). The key list says who created each key.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../helpers/apiServer";
import { api, login, makeExperiment, makeKey, makeUser, uniq } from "../../helpers/fixtures";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

describe("bound and offboarded keys", () => {
  it("a bound admin key cannot mint an unbound key or an admin user, and a bound write key cannot clone", async () => {
    const a = await makeExperiment();
    const bound = api(server.url, { bearer: await makeKey(["admin"], a.id) });
    expect((await bound("GET", `/api/v1/experiments/${a.id}`)).status).toBe(200);
    const minted = await bound("POST", "/api/v1/api-keys", { name: uniq("k"), scopes: ["admin"] });
    expect(minted.status).toBe(403);
    expect(
      (await bound("POST", "/api/v1/api-keys", { name: uniq("k"), scopes: ["read"], experimentId: a.id })).status,
    ).toBe(403);
    const user = await bound("POST", "/api/v1/users", {
      email: `${uniq("u")}@example.test`,
      password: "long-enough-password",
      role: "ADMIN",
    });
    expect(user.status).toBe(403);
    const writer = api(server.url, { bearer: await makeKey(["write"], a.id) });
    expect((await writer("POST", `/api/v1/experiments/${a.id}/clone`, {})).status).toBe(409);
  });

  it("a disabled or demoted user's keys stop working, and the key list shows who created each key", async () => {
    await makeUser("ADMIN"); // so the owner is not the last active admin
    const owner = await makeUser("ADMIN");
    const ownerApi = api(server.url, { cookie: await login(server.url, owner.email, owner.password) });
    const created = await ownerApi("POST", "/api/v1/api-keys", { name: uniq("automation"), scopes: ["admin"] });
    expect(created.status).toBe(201);
    const key = api(server.url, { bearer: created.body.key as string });
    expect((await key("GET", "/api/v1/experiments")).status).toBe(200);

    const admin = api(server.url, { bearer: await makeKey(["admin"]) });
    const listed = await admin("GET", "/api/v1/api-keys");
    const row = (listed.body.items as { id: string; createdByEmail: string | null }[]).find(
      (k) => k.id === created.body.id,
    );
    expect(row?.createdByEmail).toBe(owner.email);

    expect((await admin("PATCH", `/api/v1/users/${owner.id}`, { disabled: true })).status).toBe(200);
    expect((await key("GET", "/api/v1/experiments")).status).toBe(401);
    expect(
      (
        await key("POST", "/api/v1/users", {
          email: `${uniq("x")}@example.test`,
          password: "long-enough-password",
          role: "ADMIN",
        })
      ).status,
    ).toBe(401);
    expect((await admin("PATCH", `/api/v1/users/${owner.id}`, { disabled: false })).status).toBe(200);
    expect((await key("GET", "/api/v1/experiments")).status).toBe(200);
    expect((await admin("PATCH", `/api/v1/users/${owner.id}`, { role: "VIEWER" })).status).toBe(200);
    expect((await key("GET", "/api/v1/experiments")).status).toBe(401);
  });
});
