import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../helpers/apiServer";
import { api, login, makeKey, makeUser, uniq } from "../helpers/fixtures";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

describe("authentication and authorisation", () => {
  it("401 without credentials, with a malformed key, an unknown key and a revoked key", async () => {
    expect((await api(server.url)("GET", "/api/v1/experiments")).status).toBe(401);
    expect((await api(server.url, { bearer: "garbage" })("GET", "/api/v1/experiments")).status).toBe(401);
    expect(
      (await api(server.url, { bearer: "ocrl_deadbeef_AAAAAAAAAAAAAAAAAAAAAAAAAAAA" })("GET", "/api/v1/experiments"))
        .status,
    ).toBe(401);
    const admin = api(server.url, { bearer: await makeKey(["admin"]) });
    const created = await admin("POST", "/api/v1/api-keys", { name: "short-lived", scopes: ["read"] });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect(key).toMatch(/^ocrl_[0-9a-f]{8}_/);
    expect((await api(server.url, { bearer: key })("GET", "/api/v1/experiments")).status).toBe(200);
    const listed = await admin("GET", "/api/v1/api-keys");
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect((await admin("DELETE", `/api/v1/api-keys/${created.body.id}`)).status).toBe(200);
    expect((await api(server.url, { bearer: key })("GET", "/api/v1/experiments")).status).toBe(401);
  });

  it("401 for a wrong password, and the same message for an unknown email", async () => {
    const u = await makeUser("REVIEWER");
    const wrong = await api(server.url)("POST", "/api/auth/login", { email: u.email, password: "wrong-password" });
    const unknown = await api(server.url)("POST", "/api/auth/login", {
      email: "nobody@example.test",
      password: "wrong-password",
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error!.message).toBe(unknown.body.error!.message);
    expect((await api(server.url)("POST", "/api/auth/login", { email: "not-an-email", password: "" })).status).toBe(
      400,
    );
  });

  it("signing out ends the session: a copied cookie stops working, on every device of that user", async () => {
    const u = await makeUser("VIEWER");
    const cookie = await login(server.url, u.email, u.password);
    const other = await login(server.url, u.email, u.password); // a second device
    const copy = api(server.url, { cookie });
    expect((await copy("GET", "/api/v1/experiments")).status).toBe(200);
    expect((await api(server.url, { cookie })("POST", "/api/auth/logout")).status).toBe(200);
    expect((await copy("GET", "/api/v1/experiments")).status).toBe(401);
    expect((await api(server.url, { cookie: other })("GET", "/api/v1/experiments")).status).toBe(401);
    // Signing in again works, and the old cookie stays dead.
    const fresh = await login(server.url, u.email, u.password);
    expect((await api(server.url, { cookie: fresh })("GET", "/api/v1/experiments")).status).toBe(200);
    expect((await copy("GET", "/api/v1/experiments")).status).toBe(401);
    // A dead cookie cannot sign the new session out.
    await api(server.url, { cookie })("POST", "/api/auth/logout");
    expect((await api(server.url, { cookie: fresh })("GET", "/api/v1/experiments")).status).toBe(200);
  });

  it("a password change ends the sessions signed in with the old password", async () => {
    const u = await makeUser("REVIEWER");
    const cookie = await login(server.url, u.email, u.password);
    const admin = api(server.url, { bearer: await makeKey(["admin"]) });
    expect((await api(server.url, { cookie })("GET", "/api/v1/experiments")).status).toBe(200);
    expect((await admin("PATCH", `/api/v1/users/${u.id}`, { role: "REVIEWER" })).status).toBe(200);
    expect((await api(server.url, { cookie })("GET", "/api/v1/experiments")).status).toBe(200); // other changes keep it
    expect((await admin("PATCH", `/api/v1/users/${u.id}`, { password: "a-brand-new-password" })).status).toBe(200);
    expect((await api(server.url, { cookie })("GET", "/api/v1/experiments")).status).toBe(401);
    const fresh = await login(server.url, u.email, "a-brand-new-password");
    expect((await api(server.url, { cookie: fresh })("GET", "/api/v1/experiments")).status).toBe(200);
  });

  it("403 by scope: read keys cannot write, proxy keys cannot read the API, write keys cannot manage keys", async () => {
    const read = api(server.url, { bearer: await makeKey(["read"]) });
    expect((await read("GET", "/api/v1/experiments")).status).toBe(200);
    expect((await read("POST", "/api/v1/experiments", { name: "x" })).status).toBe(403);
    const proxy = api(server.url, { bearer: await makeKey(["proxy"]) });
    expect((await proxy("GET", "/api/v1/experiments")).status).toBe(403);
    const write = api(server.url, { bearer: await makeKey(["write"]) });
    expect((await write("POST", "/api/v1/experiments", { name: uniq("w") })).status).toBe(201);
    expect((await write("GET", "/api/v1/api-keys")).status).toBe(403);
    expect((await write("GET", "/api/v1/users")).status).toBe(403);
  });

  it("403 by role: reviewers relabel but cannot edit experiments; only admins manage users", async () => {
    const reviewer = await makeUser("REVIEWER");
    const cookie = await login(server.url, reviewer.email, reviewer.password);
    const asReviewer = api(server.url, { cookie });
    expect((await asReviewer("POST", "/api/v1/experiments", { name: "x" })).status).toBe(403);
    expect((await asReviewer("GET", "/api/v1/users")).status).toBe(403);
    const adminUser = await makeUser("ADMIN");
    const asAdmin = api(server.url, { cookie: await login(server.url, adminUser.email, adminUser.password) });
    expect((await asAdmin("GET", "/api/v1/users")).status).toBe(200);
    const made = await asAdmin("POST", "/api/v1/users", {
      email: `${uniq("new")}@example.test`,
      password: "longenough",
      role: "VIEWER",
    });
    expect(made.status).toBe(201);
    expect(JSON.stringify(made.body)).not.toMatch(/passwordHash|scrypt/);
  });

  it("a key bound to one experiment cannot read or write another's", async () => {
    const admin = api(server.url, { bearer: await makeKey(["admin"]) });
    const mine = await admin("POST", "/api/v1/experiments", { name: uniq("mine") });
    const other = await admin("POST", "/api/v1/experiments", { name: uniq("other") });
    const bound = api(server.url, { bearer: await makeKey(["write"], mine.body.id as string) });
    expect((await bound("GET", `/api/v1/experiments/${mine.body.id}`)).status).toBe(200);
    expect((await bound("GET", `/api/v1/experiments/${other.body.id}`)).status).toBe(403);
    expect((await bound("PATCH", `/api/v1/experiments/${other.body.id}`, { name: "hijack" })).status).toBe(403);
    expect((await bound("POST", "/api/v1/runs", { experimentId: other.body.id })).status).toBe(403);
    const list = await bound("GET", "/api/v1/experiments?status=ALL&limit=200");
    expect((list.body.items as { id: string }[]).map((e) => e.id)).toEqual([mine.body.id]);
  });

  it("refuses cross-site cookie writes (CSRF) but accepts same-origin JSON", async () => {
    const adminUser = await makeUser("ADMIN");
    const cookie = await login(server.url, adminUser.email, adminUser.password);
    const cross = await fetch(`${server.url}/api/v1/experiments`, {
      method: "POST",
      headers: { cookie, origin: "https://evil.example", "content-type": "application/json" },
      body: JSON.stringify({ name: "csrf" }),
    });
    expect(cross.status).toBe(403);
    const form = await fetch(`${server.url}/api/v1/experiments`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: "name=csrf",
    });
    expect(form.status).toBe(403);
    const same = await api(server.url, { cookie })("POST", "/api/v1/experiments", { name: uniq("same-origin") });
    expect(same.status).toBe(201);
  });

  it("unknown routes are 404 and wrong methods 405", async () => {
    const admin = api(server.url, { bearer: await makeKey(["admin"]) });
    expect((await admin("GET", "/api/v1/nothing-here")).status).toBe(404);
    expect((await admin("PUT", "/api/v1/experiments")).status).toBe(405);
  });
});
