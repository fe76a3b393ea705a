// One reason per failure, the same on REST (`error.reason`) and tRPC (`error.data.reason`): a client branches
// on it rather than on the message.
import { createTRPCClient, httpLink, TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "../../server/gateway/trpc/root";
import { startApiServer } from "../helpers/apiServer";
import { api, makeExperiment, makeKey } from "../helpers/fixtures";

let server: Awaited<ReturnType<typeof startApiServer>>;
const trpc = (key?: string) =>
  createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${server.url}/api/trpc`, headers: key ? { authorization: `Bearer ${key}` } : {} })],
  });

beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

/** The tRPC error's code and reason, from a call expected to fail. */
async function trpcFailure(call: Promise<unknown>) {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCClientError);
  const data = (err as TRPCClientError<AppRouter>).data as { code: string; reason: string };
  return { code: data.code, reason: data.reason };
}

describe("error reasons", () => {
  it("name each failure the same way on REST and tRPC", async () => {
    const reader = await makeKey(["read"]);
    const other = await makeExperiment();
    const bound = await makeKey(["read"], (await makeExperiment()).id);
    const rest = async (key: string | undefined, method: string, path: string, body?: unknown) => {
      const res = await api(server.url, key ? { bearer: key } : {})(method, path, body);
      return { status: res.status, code: res.body.error?.code, reason: res.body.error?.reason };
    };

    expect(await rest(undefined, "GET", "/api/v1/experiments")).toEqual({
      status: 401,
      code: "UNAUTHORIZED",
      reason: "unauthenticated",
    });
    expect(await trpcFailure(trpc().experiments.list.query({}))).toEqual({
      code: "UNAUTHORIZED",
      reason: "unauthenticated",
    });

    expect(await rest(reader, "POST", "/api/v1/experiments", { name: "x", slug: "x", config: {} })).toEqual({
      status: 403,
      code: "FORBIDDEN",
      reason: "missing_permission",
    });
    expect(
      await trpcFailure(trpc(reader).experiments.create.mutate({ name: "x", slug: "x", config: { method: "grpo" } })),
    ).toEqual({ code: "FORBIDDEN", reason: "missing_permission" });

    expect(await rest(bound, "GET", `/api/v1/experiments/${other.id}`)).toMatchObject({
      status: 403,
      reason: "other_experiment",
    });
    expect(await trpcFailure(trpc(bound).experiments.get.query({ id: other.id }))).toEqual({
      code: "FORBIDDEN",
      reason: "other_experiment",
    });

    expect(await rest(reader, "GET", "/api/v1/turns?cursor=nonsense")).toEqual({
      status: 400,
      code: "BAD_REQUEST",
      reason: "malformed_cursor",
    });
    expect(await trpcFailure(trpc(reader).turns.list.query({ cursor: "nonsense" }))).toEqual({
      code: "BAD_REQUEST",
      reason: "malformed_cursor",
    });

    expect(await rest(reader, "GET", "/api/v1/turns?limit=0")).toMatchObject({ status: 400, reason: "invalid_input" });
    expect(await trpcFailure(trpc(reader).turns.list.query({ limit: 0 }))).toEqual({
      code: "BAD_REQUEST",
      reason: "invalid_input",
    });

    expect(await rest(reader, "GET", "/api/v1/turns/nope")).toMatchObject({ status: 404, reason: "not_found" });
    expect(await trpcFailure(trpc(reader).turns.get.query({ id: "nope" }))).toEqual({
      code: "NOT_FOUND",
      reason: "not_found",
    });
  });

  it("name the run lifecycle's refusals", async () => {
    const admin = await makeKey(["admin"]);
    const call = api(server.url, { bearer: admin });
    const exp = await makeExperiment();
    const started = await call("POST", "/api/v1/runs", { experimentId: exp.id });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const again = await call("POST", "/api/v1/runs", { experimentId: exp.id });
    expect([again.status, again.body.error?.reason]).toEqual([409, "run_in_progress"]);
    expect(await trpcFailure(trpc(admin).runs.start.mutate({ experimentId: exp.id }))).toEqual({
      code: "CONFLICT",
      reason: "run_in_progress",
    });
    const id = started.body.id as string;
    expect((await call("POST", `/api/v1/runs/${id}/actions`, { action: "stop" })).status).toBe(200);
    const stopAgain = await call("POST", `/api/v1/runs/${id}/actions`, { action: "stop" });
    expect([stopAgain.status, stopAgain.body.error?.reason]).toEqual([409, "invalid_transition"]);
    expect(await trpcFailure(trpc(admin).runs.act.mutate({ id, action: "resume" }))).toEqual({
      code: "CONFLICT",
      reason: "invalid_transition",
    });
  });

  it("name the REST table's own failures", async () => {
    const reader = await makeKey(["read"]);
    const call = api(server.url, { bearer: reader });
    expect((await call("GET", "/api/v1/no-such-thing")).body.error?.reason).toBe("route_not_found");
    const wrongMethod = await call("DELETE", "/api/v1/turns");
    expect([wrongMethod.status, wrongMethod.body.error?.reason]).toEqual([405, "method_not_allowed"]);
  });
});
