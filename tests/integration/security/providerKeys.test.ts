// A stored provider key goes only to the host it was given for: an edit that moves its endpoint to another
// origin without sending the key again drops it (and the audit entry says so); a same-origin edit keeps it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../helpers/apiServer";
import { api, makeKey, uniq } from "../../helpers/fixtures";
import { db } from "../../../server/platform/db/client";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

const policy = (baseUrl: string, apiKey?: string) => ({
  policy: { kind: "openai", baseUrl, model: "gpt-x", ...(apiKey ? { apiKey } : {}) },
});

describe("stored provider keys", () => {
  it("drops the stored key when the URL moves to another origin without it, and keeps it on the same origin", async () => {
    const writer = api(server.url, { bearer: await makeKey(["write"]) });
    const created = await writer("POST", "/api/v1/experiments", {
      name: uniq("keys"),
      config: policy("https://provider.example.com/v1", "sk-stored-secret"),
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body.secretsSet).toEqual(["policy.apiKey"]);

    const samePlace = await writer("PATCH", `/api/v1/experiments/${id}`, {
      config: policy("https://provider.example.com/v2"),
    });
    expect(samePlace.status).toBe(200);
    expect(samePlace.body.secretsSet).toEqual(["policy.apiKey"]);

    const moved = await writer("PATCH", `/api/v1/experiments/${id}`, {
      config: policy("https://attacker.example.net/v1"),
    });
    expect(moved.status).toBe(200);
    expect(moved.body.secretsSet).toEqual([]);
    const entry = await db().auditLog.findFirstOrThrow({
      where: { resourceId: id, action: "experiment.update" },
      orderBy: { createdAt: "desc" },
    });
    expect(entry.after).toMatchObject({ secretsCleared: ["policy.apiKey"] });
    expect(JSON.stringify(entry)).not.toContain("sk-stored-secret");

    // Sending the key again with the new URL stores it for that origin.
    const resent = await writer("PATCH", `/api/v1/experiments/${id}`, {
      config: policy("https://attacker.example.net/v1", "sk-new"),
    });
    expect(resent.body.secretsSet).toEqual(["policy.apiKey"]);
  });
});
