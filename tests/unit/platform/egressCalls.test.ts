// The egress policy at call time: IPv6 ranges that reach IPv4 or local networks are refused, a judge call that
// is answered with a redirect does not follow it (the target is never reached), and the proxy's connection
// and egressFetch's connections validate the address they actually connect to (no second DNS resolution to rebind).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postJson } from "../../../server/judge/core/http";
import {
  assertEgressAllowed,
  egressDispatcher,
  egressLookup,
  EgressRefusedError,
} from "../../../server/platform/egress";

const strict = { allowPrivate: false, allowlist: [] as string[] };

function server(handler: http.RequestListener) {
  const s = http.createServer(handler);
  let hits = 0;
  s.on("request", () => hits++);
  return {
    listen: () => new Promise<number>((r) => s.listen(0, "127.0.0.1", () => r((s.address() as AddressInfo).port))),
    close: () => new Promise<void>((r) => s.close(() => r())),
    hits: () => hits,
  };
}

const target = server((_req, res) => res.end('{"secret":"internal"}'));
let targetPort = 0;
beforeAll(async () => {
  targetPort = await target.listen();
});
afterAll(() => target.close());

describe("egress at call time", () => {
  it("refuses IPv4-compatible, NAT64, 6to4 and site-local IPv6 addresses", async () => {
    for (const url of [
      "http://[::7f00:1]/",
      "http://[64:ff9b::a9fe:a9fe]/",
      "http://[2002:7f00:1::1]/",
      "http://[fec0::1]/",
    ]) {
      await expect(assertEgressAllowed(url, strict), url).rejects.toBeInstanceOf(EgressRefusedError);
    }
  });

  it("does not follow a redirect from a judge URL", async () => {
    const redirector = server((_req, res) => {
      res.writeHead(307, { location: `http://localhost:${targetPort}/v1/chat/completions` });
      res.end();
    });
    const port = await redirector.listen();
    try {
      const err = await postJson(`http://127.0.0.1:${port}/v1/chat/completions`, { x: 1 }).catch((e: Error) => e);
      expect(err).toBeInstanceOf(EgressRefusedError);
      expect((err as Error).message).toMatch(/redirect/);
      expect(target.hits()).toBe(0);
    } finally {
      await redirector.close();
    }
  });

  it("checks the address the proxy connects to, whatever was checked before", async () => {
    const err = await new Promise<NodeJS.ErrnoException>((resolve) => {
      const req = http.request({
        hostname: "localhost",
        port: targetPort,
        path: "/",
        lookup: egressLookup(String(targetPort), () => strict),
      });
      req.on("error", resolve);
      req.on("response", () => resolve(new Error("connected") as NodeJS.ErrnoException));
      req.end();
    });
    expect(err.code).toBe("EGRESS_REFUSED");
    expect(target.hits()).toBe(0);
    // The same lookup lets an allow-listed address through.
    const ok = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        hostname: "localhost",
        port: targetPort,
        path: "/",
        family: 4,
        lookup: egressLookup(String(targetPort), () => ({ allowPrivate: false, allowlist: ["127.0.0.1"] })),
      });
      req.on("error", reject);
      req.on("response", (res) => (res.resume(), resolve(res.statusCode ?? 0)));
      req.end();
    });
    expect(ok).toBe(200);
  });

  it("checks the address a fetch connects to, whatever the check before the call saw", async () => {
    // The dispatcher egressFetch uses, given a strict policy: the name resolves to loopback at connect time.
    const before = target.hits();
    const refused = await fetch(`http://localhost:${targetPort}/`, {
      dispatcher: egressDispatcher(String(targetPort), () => strict),
    } as RequestInit).catch((e: Error) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(((refused as Error).cause as NodeJS.ErrnoException | undefined)?.code).toBe("EGRESS_REFUSED");
    expect(target.hits()).toBe(before);
    const ok = await fetch(`http://localhost:${targetPort}/`, {
      dispatcher: egressDispatcher(String(targetPort), () => ({
        allowPrivate: false,
        allowlist: ["127.0.0.1", "::1"],
      })),
    } as RequestInit);
    expect(await ok.json()).toEqual({ secret: "internal" });
  });
});
