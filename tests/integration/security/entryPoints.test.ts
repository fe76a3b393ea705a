// Caller errors at the entry points are 4xx, not 500s with a stack in the log: an invalid bearer on tRPC is 401,
// and a malformed percent-escape in a REST path is 400.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../helpers/apiServer";
import { api, makeKey } from "../../helpers/fixtures";

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
});
