// The OpenAPI document as a client sees it: a typed client generated from /api/openapi.json (openapi-typescript)
// must equal the committed tests/generated/openapi.ts, so a changed input or output schema fails here until the
// types are regenerated (`npm test -- tests/integration/openapiClient.test.ts -u`), and `tsc` then checks every
// use of them (tests/integration/batches/lease.test.ts reads the lease response through them).
import openapiTS, { astToString } from "openapi-typescript";
import prettier from "prettier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../helpers/apiServer";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

interface Operation {
  operationId: string;
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
}

async function document() {
  const res = await fetch(`${server.url}/api/openapi.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as { paths: Record<string, Record<string, Operation>> };
}

describe("OpenAPI document", () => {
  it("gives every JSON operation a response schema", async () => {
    const doc = await document();
    const untyped: string[] = [];
    let operations = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        operations++;
        const [, success] = Object.entries(op.responses).find(([status]) => status.startsWith("2"))!;
        const json = success.content?.["application/json"];
        // Streams (SSE, NDJSON) and relayed answers are described by their content type only.
        if (!json && !op.operationId.startsWith("raw:")) untyped.push(`${method} ${path}: no JSON content`);
        if (json && !op.operationId.startsWith("raw:") && Object.keys(json.schema ?? {}).length === 0)
          untyped.push(op.operationId);
      }
    }
    expect(operations).toBeGreaterThan(60);
    expect(untyped).toEqual([]);
  });

  it("generates the committed typed client", async () => {
    const ast = await openapiTS((await document()) as never);
    const header = "// Generated from /api/openapi.json by tests/integration/openapiClient.test.ts (-u to refresh).\n";
    const source = await prettier.format(header + astToString(ast), {
      ...(await prettier.resolveConfig("tests/generated/openapi.ts")),
      parser: "typescript",
    });
    await expect(source).toMatchFileSnapshot("../generated/openapi.ts");
  });
});
