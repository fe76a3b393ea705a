import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "../../server/gateway/trpc/root";
import { startApiServer } from "../helpers/apiServer";
import { makeKey, uniq } from "../helpers/fixtures";

let server: Awaited<ReturnType<typeof startApiServer>>;
const client = (key?: string) =>
  createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${server.url}/api/trpc`, headers: key ? { authorization: `Bearer ${key}` } : {} })],
  });

beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

describe("tRPC experiments", () => {
  it("round-trips create → get → update → clone → diff → list, typed end to end", async () => {
    const t = client(await makeKey(["admin"]));
    const e = await t.experiments.create.mutate({ name: "tRPC flow", slug: uniq("trpc"), config: { method: "grpo" } });
    expect(e.config.method).toBe("grpo");
    const got = await t.experiments.get.query({ id: e.slug });
    expect(got.id).toBe(e.id);
    const upd = await t.experiments.update.mutate({
      id: e.id,
      config: { ...got.config, hyper: { ...got.config.hyper, batchSize: 8 } },
    });
    expect(upd.config.hyper.batchSize).toBe(8);
    const c = await t.experiments.clone.mutate({ id: e.id });
    expect(c.slug).not.toBe(e.slug);
    const d = await t.experiments.diff.query({ a: e.id, b: c.id });
    expect(d.changes).toEqual([]);
    const list = await t.experiments.list.query({ search: e.slug });
    expect(list.items.map((x) => x.id)).toContain(e.id);
  });

  it("reports zod issues with paths in error.data.issues", async () => {
    const t = client(await makeKey(["admin"]));
    const err = await t.experiments.create
      .mutate({ name: "x", config: { hyper: { epsClip: 0.5, epsClipHigh: 0.1 } } } as never)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    const data = (err as TRPCClientError<AppRouter>).data as {
      code: string;
      issues: { path: string; message: string }[];
    };
    expect(data.code).toBe("BAD_REQUEST");
    expect(data.issues).toContainEqual({
      path: "config.hyper.epsClipHigh",
      message: expect.stringContaining("eps-clip"),
    });
  });

  it("maps auth failures: UNAUTHORIZED without credentials, FORBIDDEN for a read key writing, NOT_FOUND for unknown ids", async () => {
    const anon = await client()
      .experiments.list.query({})
      .catch((e: TRPCClientError<AppRouter>) => e.data?.code);
    expect(anon).toBe("UNAUTHORIZED");
    const read = client(await makeKey(["read"]));
    expect(
      await read.experiments.create.mutate({ name: "x" }).catch((e: TRPCClientError<AppRouter>) => e.data?.code),
    ).toBe("FORBIDDEN");
    expect(
      await read.experiments.get.query({ id: "does-not-exist" }).catch((e: TRPCClientError<AppRouter>) => e.data?.code),
    ).toBe("NOT_FOUND");
  });

  it("validateConfig returns issues without saving", async () => {
    const t = client(await makeKey(["read"]));
    const v = await t.experiments.validateConfig.query({ config: { judge: { votes: 0 } } });
    expect(v.ok).toBe(false);
    expect(v.issues).toContainEqual({ path: "judge.votes", message: "at least one vote" });
  });
});
