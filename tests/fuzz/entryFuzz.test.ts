// Fuzzing of what the other suites leave out: REST *paths* (random segments, broken percent-escapes, dot
// segments, very long ids), the config fields that become regexes (serving.sidePatterns / contextPatterns:
// random and catastrophic shapes), and bodies one byte over the cap of every entry point (the proxy's own in
// proxyFuzz.test.ts). Whatever arrives,
// the answer is 2xx/4xx, never a 5xx; a refused pattern is a 400 naming it; an oversized body is a 413.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BODY_LIMITS } from "../../server/gateway/body";
import { routes } from "../../server/gateway/rest/table";
import { handleApi } from "../../server/gateway/handler";
import { MAX_IMPORT_BYTES } from "../../server/gateway/endpoints/exports";
import { startApiServer } from "../helpers/apiServer";
import { login, makeExperiment, makeKey, makeUser, uniq } from "../helpers/fixtures";

let server: Awaited<ReturnType<typeof startApiServer>>;
let key: string;
beforeAll(async () => {
  server = await startApiServer();
  key = await makeKey(["admin"]);
});
afterAll(() => server.close());

const segment = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s)),
  fc.string({ maxLength: 40 }),
  fc.constantFrom("%", "%E0%A4%A", "%zz", "..", ".", "%2e%2e", "%00", "%2F", "~", "x".repeat(5000), "😀"),
);

describe("entry point fuzz", () => {
  it("answers random path segments on every REST route with 2xx/4xx only", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.array(segment, { minLength: 1, maxLength: 3 }),
        async (r, segs) => {
          let i = 0;
          const path = r.path.replace(/:(\w+)/g, () => segs[i++ % segs.length]!);
          const res = await fetch(`${server.url}/api/v1${path}`, {
            method: r.method,
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: r.method === "GET" || r.method === "DELETE" ? undefined : "{}",
          }).catch(() => null); // a path fetch itself refuses to send is no answer to judge
          if (!res) return true;
          await res.arrayBuffer();
          return res.status < 500;
        },
      ),
      { numRuns: 150 },
    );
  });

  it("answers random and catastrophic serving patterns with 201 or a 400 naming the pattern", async () => {
    const pattern = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.stringMatching(/^[()*+?\\w\s.|[\]{}^$,0-9-]{1,30}$/),
      fc.constantFrom("^(\\w+\\s?)*$", "(a+)+$", "(a|a)*b", "(.*a){12}", "([a-z]+)*@", "(?=x)", "\\1(a)", "[", "{1,"),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("sidePatterns", "contextPatterns"), pattern, async (field, p) => {
        const res = await fetch(`${server.url}/api/v1/experiments`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ name: uniq("re"), config: { serving: { [field]: [p] } } }),
        });
        const body = (await res.json()) as { error?: { issues?: { path: string }[] } };
        if (res.status === 201) return true;
        return res.status === 400 && !!body.error?.issues?.some((i) => i.path.startsWith(`config.serving.${field}`));
      }),
      { numRuns: 100 },
    );
  });

  it("refuses a body one byte over the cap of every entry point with 413", async () => {
    const over = (limit: number) => JSON.stringify({ email: "a@example.test", password: "x".repeat(limit) });
    const u = await makeUser("ADMIN");
    const cookie = await login(server.url, u.email, u.password);
    const cases: [string, string, Record<string, string>][] = [
      ["/api/auth/login", over(BODY_LIMITS.login), {}],
      ["/api/v1/experiments", over(BODY_LIMITS.rest), { authorization: `Bearer ${key}` }],
      ["/api/trpc/experiments.create", over(BODY_LIMITS.login), {}],
      ["/api/trpc/experiments.create", over(BODY_LIMITS.trpc), { authorization: `Bearer ${key}` }],
      ["/api/playground/chat", over(BODY_LIMITS.playground), { cookie, origin: server.url }],
      ["/api/playground/feedback", over(BODY_LIMITS.playground), { cookie, origin: server.url }],
    ];
    for (const [path, body, headers] of cases) {
      const res = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      }).catch((e: Error & { cause?: { code?: string } }) => {
        // The server may close the socket right after its 413 while the rest of the body is still being sent.
        if (e.cause?.code === "ECONNRESET" || e.cause?.code === "EPIPE") return null;
        throw e;
      });
      if (res) expect(res.status, path).toBe(413);
    }
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });

  it("refuses an import one byte over its cap with 413 before buffering it", async () => {
    // Straight into the handler with a body generated as it is read: 256 MB never sits in the test's memory.
    const chunk = new Uint8Array(1024 * 1024).fill(0x78);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        const left = MAX_IMPORT_BYTES + 1 - sent;
        if (left <= 0) return c.close();
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        sent += part.length;
        c.enqueue(part);
      },
    });
    const res = await handleApi(
      new Request(`http://local/api/import/openclaw?experimentId=${(await makeExperiment()).id}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
        body,
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect(sent).toBeLessThanOrEqual(MAX_IMPORT_BYTES + 1);
  });
});
