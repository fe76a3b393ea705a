// LoRA adapter folders (policy.loraAdapters): the proxy asks the serving engine to load the checkpointPath a
// trainer acknowledges, so a trainer key may only name a folder inside MODELS_DIR or the operator's ADAPTER_DIRS
// (absolute, no `..`, real path inside where it exists here). Anything else is a 400 at the ack that names the
// field, and nothing is recorded; experiments that do not serve adapters keep their trainers' own paths.
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { issueTrainerKey } from "../../../server/runs/keys";
import { startApiServer } from "../../helpers/apiServer";
import { ADMIN, api, makeExperiment, makeRun } from "../../helpers/fixtures";
import { makeJudgedSession, SLIME_EXPERIMENT } from "../training/leases/helpers";

let server: Awaited<ReturnType<typeof startApiServer>>;
let adapters = "";
let outside = "";
beforeAll(async () => {
  server = await startApiServer();
  adapters = await mkdtemp(path.join(os.tmpdir(), "adapters-"));
  outside = await mkdtemp(path.join(os.tmpdir(), "elsewhere-"));
  process.env.ADAPTER_DIRS = adapters;
});
afterAll(async () => {
  delete process.env.ADAPTER_DIRS;
  await server.close();
  await rm(adapters, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function leased(config: typeof SLIME_EXPERIMENT) {
  const e = await makeExperiment(config, { by: ADMIN });
  const run = await makeRun(e.id, { trainerBackend: config.trainer?.backend });
  const call = api(server.url, { bearer: await issueTrainerKey(run) });
  await makeJudgedSession(e.id, run.id, 2);
  const lease = await call("POST", `/api/v1/runs/${run.id}/batches/lease`, { size: 2 });
  expect(lease.status).toBe(200);
  const ack = (checkpointPath: string) =>
    call("POST", `/api/v1/runs/${run.id}/batches/${lease.body.leaseId as string}/ack`, { step: 1, checkpointPath });
  return { run, ack };
}

const HF_LORA = {
  method: "grpo",
  policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30000/v1", model: "base", loraAdapters: "sglang" },
  trainer: { backend: "hf-local" },
} as const satisfies typeof SLIME_EXPERIMENT;

describe("adapter folders a trainer acknowledges", () => {
  it("are refused outside the adapter directories (400 naming checkpointPath), accepted inside", async () => {
    const { run, ack } = await leased(HF_LORA);
    await mkdir(path.join(adapters, "run"), { recursive: true });
    await symlink(outside, path.join(adapters, "run", "escape"));
    for (const bad of [
      "/etc",
      path.join(outside, "step-000001"),
      `${adapters}/../${path.basename(outside)}/step-000001`,
      "run/step-000001",
      path.join(adapters, "run", "escape"),
      `${adapters}/run/step\n000001`,
    ]) {
      const res = await ack(bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.error!.issues[0]).toMatchObject({ path: "checkpointPath" });
      // The host's layout does not come back in the answer.
      expect(JSON.stringify(res.body)).not.toContain(outside);
    }
    expect(await db().policyVersion.count({ where: { runId: run.id } })).toBe(0);

    const good = path.join(adapters, "run", "step-000001");
    expect((await ack(good)).status).toBe(200);
    expect(await db().policyVersion.findFirstOrThrow({ where: { runId: run.id } })).toMatchObject({
      checkpointPath: good,
    });
  });

  it("are not restricted for an experiment that does not serve adapters", async () => {
    const { ack } = await leased(SLIME_EXPERIMENT);
    expect((await ack("/mnt/cluster/slime-save/iter_0000001")).status).toBe(200);
  });
});
