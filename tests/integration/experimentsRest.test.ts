import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { BACKEND_HYPER_DEFAULTS } from "../../server/config/experimentConfig";
import { startApiServer } from "../helpers/apiServer";
import { api, makeKey, makeUser, uniq } from "../helpers/fixtures";

let server: Awaited<ReturnType<typeof startApiServer>>;
let admin: ReturnType<typeof api>;

beforeAll(async () => {
  server = await startApiServer();
  admin = api(server.url, { bearer: await makeKey(["admin"]) });
});
afterAll(() => server.close());

describe("REST /api/v1/experiments", () => {
  it("creates, reads, edits, clones, lists, diffs, archives and deletes, each audited", async () => {
    const slug = uniq("rest");
    const created = await admin("POST", "/api/v1/experiments", { name: "REST flow", slug, config: { method: "grpo" } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    // The embedded trainer (the default backend) has its own learning rate: OpenClaw-RL's 1e-5 would leave its model where it is.
    expect(created.body).toMatchObject({
      slug,
      name: "REST flow",
      status: "ACTIVE",
      config: { method: "grpo", trainer: { backend: "embedded" }, hyper: { lr: BACKEND_HYPER_DEFAULTS.embedded.lr } },
    });

    expect((await admin("GET", `/api/v1/experiments/${slug}`)).body.id).toBe(id);

    const edited = await admin("PATCH", `/api/v1/experiments/${id}`, {
      config: { method: "opd", hyper: { lr: 2e-5 } },
      description: "edited",
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ description: "edited", config: { method: "opd", hyper: { lr: 2e-5 } } });

    const clone = await admin("POST", `/api/v1/experiments/${id}/clone`, { name: `${slug} clone` });
    expect(clone.status).toBe(201);
    expect(clone.body.config).toEqual(edited.body.config);

    const diff = await admin("GET", `/api/v1/config-diff?a=${id}&b=${clone.body.id}`);
    expect(diff.body.changes).toEqual([]);
    await admin("PATCH", `/api/v1/experiments/${clone.body.id}`, { config: { method: "combine" } });
    const diff2 = await admin("GET", `/api/v1/config-diff?a=${id}&b=${clone.body.id}`);
    expect(diff2.body.changes).toEqual(expect.arrayContaining([{ path: "method", before: "opd", after: "combine" }]));

    const list = await admin("GET", `/api/v1/experiments?search=${slug}&limit=1`);
    expect(list.status).toBe(200);
    expect((list.body.items as { slug: string }[]).map((e) => e.slug)).toHaveLength(1);
    expect(list.body.nextCursor).toBeTruthy();
    const page2 = await admin("GET", `/api/v1/experiments?search=${slug}&limit=1&cursor=${list.body.nextCursor}`);
    expect((page2.body.items as unknown[]).length).toBe(1);
    expect(page2.body.items).not.toEqual(list.body.items);

    expect((await admin("POST", `/api/v1/experiments/${id}/archive`, {})).body.status).toBe("ARCHIVED");
    expect((await admin("PATCH", `/api/v1/experiments/${id}`, { name: "x" })).status).toBe(409);
    expect((await admin("DELETE", `/api/v1/experiments/${id}`)).status).toBe(200);
    expect((await admin("GET", `/api/v1/experiments/${id}`)).status).toBe(404);

    const actions = (await db().auditLog.findMany({ where: { resourceId: id }, orderBy: { createdAt: "asc" } })).map(
      (a) => a.action,
    );
    expect(actions).toEqual(["experiment.create", "experiment.update", "experiment.archive", "experiment.delete"]);
  });

  it("answers bad input with 400 and every zod issue with its path, writing nothing", async () => {
    // Rows are looked up by what this request carries: other files create experiments in the same database meanwhile,
    // so a count of all rows is not this request's doing (it failed a CI run once).
    const description = uniq("bad-input");
    const res = await admin("POST", "/api/v1/experiments", {
      name: "",
      slug: "Bad Slug!",
      description,
      config: { hyper: { lr: -1, batchSize: 0 } },
    });
    expect(res.status).toBe(400);
    const paths = res.body.error!.issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(["name", "slug", "config.hyper.lr", "config.hyper.batchSize"]));
    expect(await db().experiment.count({ where: { description } })).toBe(0);
    const malformed = await fetch(`${server.url}/api/v1/experiments`, {
      method: "POST",
      headers: { authorization: `Bearer ${await makeKey(["admin"])}`, "content-type": "application/json" },
      body: "{not json",
    });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.message).toMatch(/Malformed JSON/);
  });

  it("refuses upstream URLs on private ranges that the operator did not allow (SSRF)", async () => {
    const res = await admin("POST", "/api/v1/experiments", {
      name: uniq("ssrf"),
      config: {
        method: "grpo",
        judge: { backend: { kind: "openai", baseUrl: "http://169.254.169.254/latest", model: "m" } },
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error!.issues).toContainEqual({
      path: "config.judge.backend.baseUrl",
      message: expect.stringContaining("UPSTREAM_ALLOWLIST"),
    });
  });

  it("checks a custom reward module when the experiment is saved, not at the first judged turn", async () => {
    const config = (modulePath: string) => ({ method: "grpo", judge: { backend: { kind: "custom", modulePath } } });
    const refusedName = uniq("custom");
    const missing = await admin("POST", "/api/v1/experiments", {
      name: refusedName,
      config: config("examples/no-such-reward.ts"),
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error!.issues).toContainEqual({
      path: "config.judge.backend.modulePath",
      message: expect.stringContaining("no-such-reward.ts"),
    });
    expect(await db().experiment.count({ where: { name: refusedName } })).toBe(0);
    const okName = uniq("custom");
    const ok = await admin("POST", "/api/v1/experiments", { name: okName, config: config("custom-reward.ts") });
    expect(ok.status).toBe(201);
    expect(await db().experiment.count({ where: { name: okName } })).toBe(1);
    const edited = await admin("PATCH", `/api/v1/experiments/${ok.body.id}`, {
      config: config("custom-reward.txt"),
    });
    expect(edited.status).toBe(400);
    expect(edited.body.error!.issues[0]).toMatchObject({ path: "config.judge.backend.modulePath" });
  });

  it("refuses to delete an experiment with data (409: archive instead) and keeps it", async () => {
    const e = await admin("POST", "/api/v1/experiments", { name: uniq("withdata") });
    const run = await admin("POST", "/api/v1/runs", { experimentId: e.body.id });
    expect(run.status).toBe(201);
    const del = await admin("DELETE", `/api/v1/experiments/${e.body.id}`);
    expect(del.status).toBe(409);
    expect(del.body.error!.message).toMatch(/archive it instead/);
    expect((await admin("GET", `/api/v1/experiments/${e.body.id}`)).status).toBe(200);
  });

  it("runs a lifecycle: start, refuse a second live run, stop, restart with the next number", async () => {
    const e = await admin("POST", "/api/v1/experiments", { name: uniq("runs") });
    const r1 = await admin("POST", "/api/v1/runs", { experimentId: e.body.id });
    expect(r1.body).toMatchObject({ number: 1, status: "PENDING", trainerBackend: "embedded" });
    expect((await admin("POST", "/api/v1/runs", { experimentId: e.body.id })).status).toBe(409);
    const stopped = await admin("POST", `/api/v1/runs/${r1.body.id}/actions`, { action: "stop" });
    expect(stopped.body.status).toBe("KILLED");
    expect((await admin("POST", `/api/v1/runs/${r1.body.id}/actions`, { action: "resume" })).status).toBe(409);
    const r2 = await admin("POST", "/api/v1/runs", { experimentId: e.body.id });
    expect(r2.body.number).toBe(2);
    expect(r2.body.config).toEqual(e.body.config);
  });

  it("never returns upstream secrets, but keeps them encrypted at rest", async () => {
    const secret = "sk-very-secret-upstream-key-123";
    const e = await admin("POST", "/api/v1/experiments", {
      name: uniq("secret"),
      config: {
        method: "grpo",
        judge: { backend: { kind: "openai", baseUrl: "https://api.example.com/v1", model: "judge", apiKey: secret } },
      },
    });
    expect(e.status).toBe(201);
    expect(JSON.stringify(e.body)).not.toContain(secret);
    expect(e.body.secretsSet).toEqual(["judge.backend.apiKey"]);
    const row = await db().experiment.findUniqueOrThrow({ where: { id: e.body.id as string } });
    expect(JSON.stringify(row.config)).not.toContain(secret);
    expect(JSON.stringify(row.secrets)).not.toContain(secret);
    // An edit that omits the key keeps it; "" clears it.
    const kept = await admin("PATCH", `/api/v1/experiments/${e.body.id}`, {
      config: { ...(e.body.config as object), hyper: { lr: 3e-5 } },
    });
    expect(kept.body.secretsSet).toEqual(["judge.backend.apiKey"]);
    const cfg = kept.body.config as { judge: { backend: Record<string, unknown> } };
    const cleared = await admin("PATCH", `/api/v1/experiments/${e.body.id}`, {
      config: { ...cfg, judge: { ...cfg.judge, backend: { ...cfg.judge.backend, apiKey: "" } } },
    });
    expect(cleared.body.secretsSet).toEqual([]);
    const audits = await db().auditLog.findMany({ where: { resourceId: e.body.id as string } });
    expect(JSON.stringify(audits)).not.toContain(secret);
  });

  it("serves an OpenAPI document covering every REST route", async () => {
    const doc = (await fetch(`${server.url}/api/openapi.json`).then((r) => r.json())) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/experiments",
        "/api/v1/experiments/{id}",
        "/api/v1/runs",
        "/api/v1/sessions",
        "/api/v1/turns/{id}",
        "/api/v1/labels",
        "/api/v1/metrics",
        "/api/v1/api-keys",
        "/api/v1/users",
      ]),
    );
    expect(doc.paths["/api/v1/experiments"]!.post).toMatchObject({
      requestBody: { content: { "application/json": { schema: { type: "object" } } } },
    });
  });

  it("lets a viewer read but not write, via session cookie", async () => {
    const viewer = await makeUser("VIEWER");
    const res = await fetch(`${server.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: viewer.email, password: viewer.password }),
    });
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const asViewer = api(server.url, { cookie: cookie.split(";")[0] });
    expect((await asViewer("GET", "/api/v1/experiments")).status).toBe(200);
    const denied = await asViewer("POST", "/api/v1/experiments", { name: "nope" });
    expect(denied.status).toBe(403);
    expect(denied.body.error!.message).toMatch(/'write' permission/);
  });
});
