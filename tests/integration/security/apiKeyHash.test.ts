// API keys are hashed with a keyed HMAC-SHA256 (192-bit secrets need no slow hash; a guess costs microseconds,
// not a scrypt), and keys stored with the old scrypt hash keep working and are rehashed on first use.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { startApiServer } from "../../helpers/apiServer";
import { api, makeKey, uniq } from "../../helpers/fixtures";
import { db } from "../../../server/platform/db/client";
import { hashSecret } from "../../../server/access/password";
import { parseKeyPrefix } from "../../../server/access/apiKeys";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

describe("API key hashes", () => {
  it("stores new keys as HMAC-SHA256, and refuses a real prefix with a wrong secret", async () => {
    const key = await makeKey(["read"]);
    const row = await db().apiKey.findUniqueOrThrow({ where: { prefix: parseKeyPrefix(key)! } });
    expect(row.secretHash).toMatch(/^hmac-sha256\$[A-Za-z0-9_-]{43}$/);
    expect(row.secretHash).not.toContain(key.split("_")[2]);
    const wrong = `${parseKeyPrefix(key)}_${randomBytes(24).toString("base64url")}`;
    expect((await api(server.url, { bearer: wrong })("GET", "/api/v1/experiments")).status).toBe(401);
    expect((await api(server.url, { bearer: key })("GET", "/api/v1/experiments")).status).toBe(200);
  });

  it("accepts a key stored with a legacy scrypt hash and rehashes it with the HMAC on first use", async () => {
    const prefix = `ocrl_${randomBytes(4).toString("hex")}`;
    const key = `${prefix}_${randomBytes(24).toString("base64url")}`;
    await db().apiKey.create({
      data: { name: uniq("legacy"), prefix, secretHash: await hashSecret(key), scopes: ["read"] },
    });
    expect((await api(server.url, { bearer: key })("GET", "/api/v1/experiments")).status).toBe(200);
    const row = await db().apiKey.findUniqueOrThrow({ where: { prefix } });
    expect(row.secretHash).toMatch(/^hmac-sha256\$/);
    // Still the same key after the rehash (a fresh verification: another prefix-cache miss is not needed).
    expect((await api(server.url, { bearer: key })("GET", "/api/v1/experiments")).status).toBe(200);
    const wrong = `${prefix}_${randomBytes(24).toString("base64url")}`;
    expect((await api(server.url, { bearer: wrong })("GET", "/api/v1/experiments")).status).toBe(401);
  });
});
