// Caller errors at the entry points are 4xx, not 500s with a stack in the log: an invalid bearer on tRPC is 401,
// and a malformed percent-escape in a REST path is 400. Sign-in takes JSON only (a cross-site text/plain form
// cannot sign a victim in), its cookie is Secure from PUBLIC_URL (not a client-written X-Forwarded-Proto), and a
// tRPC batch runs at most TRPC_MAX_BATCH procedures.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../helpers/apiServer";
import { TRPC_MAX_BATCH } from "../../../server/gateway/trpc/limits";
import { api, makeKey, makeUser } from "../../helpers/fixtures";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

describe("entry point errors", () => {
  it("answers an invalid bearer on tRPC with 401", async () => {
    for (const bearer of ["garbage", "ocrl_deadbeef_AAAAAAAAAAAAAAAAAAAAAAAAAAAA"]) {
      const res = await fetch(`${server.url}/api/trpc/experiments.list`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
      expect(res.status).toBe(401);
    }
  });

  it("answers a malformed percent-escape in a REST path with 400", async () => {
    const key = api(server.url, { bearer: await makeKey(["read"]) });
    const res = await key("GET", "/api/v1/experiments/%E0%A4%A");
    expect(res.status).toBe(400);
    expect(res.body.error!.message).toMatch(/percent-encoding/);
  });

  it("refuses a sign-in that is not JSON with 415 and sets no cookie", async () => {
    const user = await makeUser("VIEWER");
    for (const type of ["text/plain", "application/x-www-form-urlencoded", ""]) {
      const res = await fetch(`${server.url}/api/auth/login`, {
        method: "POST",
        headers: type ? { "content-type": type } : {},
        body: JSON.stringify({ email: user.email, password: user.password }),
      });
      expect(res.status).toBe(415);
      expect(res.headers.get("set-cookie")).toBeNull();
    }
  });

  it("marks the session cookie Secure from PUBLIC_URL, not from X-Forwarded-Proto", async () => {
    const user = await makeUser("VIEWER");
    const signIn = async () =>
      fetch(`${server.url}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-proto": "https" },
        body: JSON.stringify({ email: user.email, password: user.password }),
      });
    const saved = process.env.PUBLIC_URL;
    try {
      process.env.PUBLIC_URL = "http://console.example.test";
      const plain = await signIn();
      expect(plain.status).toBe(200);
      expect(plain.headers.get("set-cookie")).not.toMatch(/;\s*Secure/i);
      process.env.PUBLIC_URL = "https://console.example.test";
      expect((await signIn()).headers.get("set-cookie")).toMatch(/;\s*Secure/i);
    } finally {
      if (saved === undefined) delete process.env.PUBLIC_URL;
      else process.env.PUBLIC_URL = saved;
    }
  });

  it("runs a tRPC batch up to TRPC_MAX_BATCH procedures and refuses a longer one", async () => {
    const bearer = await makeKey(["read"]);
    const batch = (n: number) =>
      fetch(`${server.url}/api/trpc/${Array(n).fill("me").join(",")}?batch=1`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
    expect((await batch(2)).status).toBe(200);
    expect((await batch(TRPC_MAX_BATCH + 1)).status).toBe(400);
  });
});
