// Policy versions over the real HTTP API (REST and tRPC): list, get, promote, roll back — with the
// announcement on Redis that proxies switch on, and refusals for pruned or unknown versions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import path from "node:path";
import { db } from "../../../server/platform/db/client";
import { startApiServer } from "../../helpers/apiServer";
import { api, makeExperiment, makeKey } from "../../helpers/fixtures";
import { collect } from "./helpers";
import { makeBaseCheckpoint } from "../../../bench/lib/baseCheckpoint";
import { isolateDataDir, isolateRedis } from "../../helpers/isolate";
import { waitFor } from "../../helpers/waitFor";

isolateRedis("train-api");
let server: Awaited<ReturnType<typeof startApiServer>>;
let dataDir = "";
let base = "";

beforeAll(async () => {
  dataDir = await isolateDataDir("api");
  base = await makeBaseCheckpoint(dataDir, 2);
  server = await startApiServer();
});
afterAll(async () => {
  await server.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** Versions 1..3 of an experiment, 3 ACTIVE; version 1's files pruned. */
async function experimentWithVersions() {
  const { id } = await makeExperiment({ method: "grpo", policy: { kind: "embedded", checkpoint: base } });
  const dirs: (string | null)[] = [];
  for (let v = 1; v <= 3; v++) {
    const dir = v === 1 ? null : path.join(dataDir, `ckpt-${id}-v${v}`);
    if (dir) await fs.cp(base, dir, { recursive: true });
    dirs.push(dir);
    await db().policyVersion.create({
      data: {
        experimentId: id,
        version: v,
        parentVersion: v - 1,
        status: v === 3 ? "ACTIVE" : "RETIRED",
        checkpointPath: dir,
        checkpointSha: "0".repeat(64),
        step: v,
      },
    });
  }
  return { id, dirs };
}

describe("policy versions API", () => {
  it("lists, promotes and rolls back over REST, announcing each change", async () => {
    const { id, dirs } = await experimentWithVersions();
    const call = api(server.url, { bearer: await makeKey(["write"]) });
    const versions = await collect("policyVersion");
    try {
      const list = await call("GET", `/api/v1/policy-versions?experimentId=${id}`);
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ activeVersion: 3 });
      expect(
        (list.body.items as { version: number; status: string; available: boolean }[]).map((v) => [
          v.version,
          v.status,
          v.available,
        ]),
      ).toEqual([
        [3, "ACTIVE", true],
        [2, "RETIRED", true],
        [1, "RETIRED", false],
      ]);
      expect((await call("GET", `/api/v1/policy-versions/2?experimentId=${id}`)).body).toMatchObject({
        version: 2,
        checkpointPath: dirs[1],
        trainingStep: null,
      });

      const pruned = await call("POST", "/api/v1/policy-versions/promote", { experimentId: id, version: 1 });
      expect(pruned.status).toBe(409);
      expect((await call("POST", "/api/v1/policy-versions/promote", { experimentId: id, version: 9 })).status).toBe(
        404,
      );

      const back = await call("POST", "/api/v1/policy-versions/rollback", { experimentId: id });
      expect(back.status).toBe(200);
      expect(back.body).toMatchObject({ active: { version: 2, checkpointPath: dirs[1] }, previous: 3 });
      const promoted = await call("POST", "/api/v1/policy-versions/promote", { experimentId: id, version: 3 });
      expect(promoted.body).toMatchObject({ active: { version: 3, checkpointPath: dirs[2] }, previous: 2 });

      await waitFor("both announcements", () => versions.messages.filter((m) => m.experimentId === id).length === 2);
      expect(versions.messages.filter((m) => m.experimentId === id)).toEqual([
        { experimentId: id, version: 2, checkpointPath: dirs[1] },
        { experimentId: id, version: 3, checkpointPath: dirs[2] },
      ]);
      const rows = await db().policyVersion.findMany({ where: { experimentId: id }, orderBy: { version: "asc" } });
      expect(rows.map((r) => r.status)).toEqual(["RETIRED", "RETIRED", "ACTIVE"]);
      const audit = await db().auditLog.findMany({
        where: { resourceType: "experiment", resourceId: id },
        orderBy: { createdAt: "asc" },
      });
      expect(audit.map((a) => [a.action, a.before, a.after])).toEqual([
        ["policyVersion.rollback", { activeVersion: 3 }, { activeVersion: 2 }],
        ["policyVersion.promote", { activeVersion: 2 }, { activeVersion: 3 }],
      ]);
    } finally {
      await versions.close();
    }
  });

  it("tRPC: a read-only key may list but not roll back", async () => {
    const { id } = await experimentWithVersions();
    const read = await makeKey(["read"]);
    const list = await fetch(
      `${server.url}/api/trpc/policyVersions.list?input=${encodeURIComponent(JSON.stringify({ experimentId: id }))}`,
      { headers: { authorization: `Bearer ${read}` } },
    );
    expect(list.status).toBe(200);
    const denied = await fetch(`${server.url}/api/trpc/policyVersions.rollback`, {
      method: "POST",
      headers: { authorization: `Bearer ${read}`, "content-type": "application/json" },
      body: JSON.stringify({ experimentId: id }),
    });
    expect(denied.status).toBe(403);
    expect((await db().policyVersion.findFirstOrThrow({ where: { experimentId: id, status: "ACTIVE" } })).version).toBe(
      3,
    );
  });
});
