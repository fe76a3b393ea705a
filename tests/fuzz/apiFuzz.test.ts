// Property-based fuzzing of the REST and tRPC inputs: whatever arrives, the answer is a 4xx (or a 2xx for an
// input that happens to be valid), never a 5xx or a crash, and no mutation is half-written.
import net from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/platform/db/client";
import { routes } from "../../server/gateway/rest/table";
import { startApiServer } from "../helpers/apiServer";
import { makeKey, SEEDED_ROW } from "../helpers/fixtures";

let server: Awaited<ReturnType<typeof startApiServer>>;
let key: string;
beforeAll(async () => {
  server = await startApiServer();
  key = await makeKey(["admin"]);
});
afterAll(() => server.close());

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
const nastyBody = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.anything({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? "null"),
  fc
    .record({
      name: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      config: fc.anything({ maxDepth: 3 }),
      slug: fc.string(),
    })
    .map((v) => JSON.stringify(v)),
  fc.constantFrom(
    deep(5000),
    '{"name":' + '"x'.repeat(3) + "}",
    "\u0000",
    "{",
    '{"a":1,}',
    "x".repeat(2_000_000),
    "[" + "1,".repeat(200_000) + "1]",
  ),
);

async function send(method: string, path: string, body: string | Uint8Array | undefined): Promise<number> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body as BodyInit | undefined,
  });
  await res.arrayBuffer();
  return res.status;
}

describe("REST fuzz", () => {
  const writeRoutes = routes.filter((r) => r.method === "POST" || r.method === "PATCH");

  it("answers random bodies on every write route with 2xx/4xx only", async () => {
    // Other test files run alongside and create experiments too: with their audit entry (through the service,
    // counted on both sides) or as seeded rows without one (left out by their description).
    const experiments = () => db().experiment.count({ where: { description: { not: SEEDED_ROW } } });
    const before = {
      experiments: await experiments(),
      audits: await db().auditLog.count({ where: { action: "experiment.create" } }),
    };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writeRoutes), nastyBody, async (r, body) => {
        const status = await send(r.method, `/api/v1${r.path.replace(/:(\w+)/g, "fuzz-id")}`, body);
        return status < 500;
      }),
      { numRuns: 120 },
    );
    // Every experiment that got created has its audit entry (mutation and audit share a transaction).
    const createdExperiments = (await experiments()) - before.experiments;
    const createdAudits = (await db().auditLog.count({ where: { action: "experiment.create" } })) - before.audits;
    expect(createdExperiments).toBe(createdAudits);
  });

  it("answers random query strings on every read route with 2xx/4xx only", async () => {
    const reads = routes.filter((r) => r.method === "GET");
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...reads),
        fc.dictionary(
          fc.constantFrom(
            "limit",
            "cursor",
            "search",
            "status",
            "sort",
            "order",
            "a",
            "b",
            "kind",
            "since",
            "names",
            "experimentId",
          ),
          fc.string({ maxLength: 300 }),
        ),
        async (r, q) => {
          const qs = new URLSearchParams(q).toString();
          const res = await fetch(
            `${server.url}/api/v1${r.path.replace(/:(\w+)/g, encodeURIComponent("x\u00e9%"))}?${qs}`,
            { headers: { authorization: `Bearer ${key}` } },
          );
          await res.arrayBuffer();
          return res.status < 500;
        },
      ),
      { numRuns: 120 },
    );
  });

  it("rejects invalid UTF-8 and oversized bodies with 4xx", async () => {
    expect(await send("POST", "/api/v1/experiments", new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]))).toBe(400);
    expect(await send("POST", "/api/v1/experiments", JSON.stringify({ name: "x".repeat(2_000_000) }))).toBe(413);
  });

  it("survives header injection attempts on a raw socket", async () => {
    const port = new URL(server.url).port;
    const raw = [
      `GET /api/v1/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nX-Session-Id: a\r\n b\r\n\r\n`,
      `GET /api/v1/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer x\u0000y\r\n\r\n`,
      `POST /api/v1/experiments HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{"a":1}`,
    ];
    for (const payload of raw) {
      const reply = await new Promise<string>((resolve) => {
        const s = net.connect(Number(port), "127.0.0.1", () => s.end(payload));
        let buf = "";
        s.on("data", (d) => (buf += d));
        s.on("close", () => resolve(buf));
        s.on("error", () => resolve(buf));
      });
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 400);
      expect(status).toBeLessThan(500);
    }
    // And the server still answers normally afterwards.
    expect(
      (await fetch(`${server.url}/api/v1/experiments`, { headers: { authorization: `Bearer ${key}` } })).status,
    ).toBe(200);
  });
});

describe("tRPC fuzz", () => {
  it("answers random inputs to every procedure with 2xx/4xx only", async () => {
    const { appRouter } = await import("../../server/gateway/trpc/root");
    const procs = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...procs), fc.anything({ maxDepth: 3 }), async ([name, p], input) => {
        const encoded = JSON.stringify(input) ?? "null";
        const isQuery = p._def.type === "query";
        const res = await fetch(
          `${server.url}/api/trpc/${name}${isQuery ? `?input=${encodeURIComponent(encoded)}` : ""}`,
          {
            method: isQuery ? "GET" : "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: isQuery ? undefined : encoded,
          },
        );
        await res.arrayBuffer();
        return res.status < 500;
      }),
      { numRuns: 150 },
    );
  });
});
