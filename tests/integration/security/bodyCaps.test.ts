// Every /api entry point reads its body through one capped reader: an oversized body is refused with 413
// before it is buffered, signed in or not, and the console keeps answering.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../helpers/apiServer";
import { api, login, makeKey, makeUser } from "../../helpers/fixtures";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

const big = (bytes: number) => JSON.stringify({ email: "a@example.test", password: "x".repeat(bytes) });

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const send = () =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });
  // A reused keep-alive socket that the server closed while idle resets the request (a transport race, not an
  // answer): sent once more on a fresh connection. Any HTTP answer is asserted as it is.
  const res = await send().catch((e: Error & { cause?: { code?: string } }) => {
    if (e.cause?.code !== "ECONNRESET") throw e;
    return send();
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as { error?: { message: string } } | null };
}

describe("request body caps", () => {
  it("refuses a 50 MB sign-in body with 413 and a clear message, and the console still answers", async () => {
    const res = await post("/api/auth/login", big(50 * 1024 * 1024));
    expect(res.status).toBe(413);
    expect(res.body?.error?.message).toMatch(/exceeds the 4096-byte limit/);
    const u = await makeUser("VIEWER");
    expect(await login(server.url, u.email, u.password)).toMatch(/=/);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });

  it("caps REST at 1 MB, tRPC (anonymous at the sign-in limit) and the playground", async () => {
    const key = await makeKey(["admin"]);
    const rest = await post("/api/v1/experiments", big(2_000_000), { authorization: `Bearer ${key}` });
    expect(rest.status).toBe(413);
    expect(rest.body?.error?.message).toMatch(/1000000-byte limit/);
    const anonTrpc = await post("/api/trpc/experiments.create", big(100_000));
    expect(anonTrpc.status).toBe(413);
    const trpc = await post("/api/trpc/experiments.create", big(30 * 1024 * 1024), { authorization: `Bearer ${key}` });
    expect(trpc.status).toBe(413);
    const u = await makeUser("ADMIN");
    const cookie = await login(server.url, u.email, u.password);
    const play = await post("/api/playground/chat", big(30 * 1024 * 1024), { cookie, origin: server.url });
    expect(play.status).toBe(413);
    // Within the caps, the same entry points still work.
    expect((await api(server.url, { bearer: key })("GET", "/api/v1/experiments")).status).toBe(200);
  });
});
