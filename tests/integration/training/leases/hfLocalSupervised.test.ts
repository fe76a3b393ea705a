// An hf-local experiment as the dashboard creates it, run by the real supervisor on this machine with the tiny
// CPU model: the launch starts integrations/hf/train.py with an experiment-bound key, the process reports its
// policy and frozen-base endpoints, trains the judged samples and publishes version 1 with its checkpoint; the
// launch preview says how it runs; stopping the run ends the process. The preview of a GPU model follows the
// experiment's fine-tuning choice over the host's HF_LOCAL_FINETUNE, with full fine-tuning's memory in the numbers.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../../../server/access/principal";
import { db } from "../../../../server/platform/db/client";
import { groupAlive } from "../../../../server/runs/backends/localProcess/processGroup";
import { launchPreview } from "../../../../server/runs/preview";
import { actOnRun, startRun } from "../../../../server/runs/service";
import { supervisorSettings } from "../../../../server/runs/settings";
import { RunSupervisor } from "../../../../server/runs/supervisor";
import { startApiServer } from "../../../helpers/apiServer";
import { ADMIN, makeExperiment } from "../../../helpers/fixtures";
import { torchPython } from "../../../helpers/torchPython";
import { waitFor } from "../../../helpers/waitFor";
import { makeJudgedSession } from "./helpers";

const admin: Principal = {
  kind: "apiKey",
  keyId: "hf-supervisor-test",
  prefix: "hfs",
  scopes: ["admin"],
  experimentId: null,
  runId: null,
  createdById: null,
};
const python = torchPython();

let server: Awaited<ReturnType<typeof startApiServer>>;
let sup: RunSupervisor | undefined;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(async () => {
  await sup?.shutdown();
  server.close();
});

describe.skipIf(!python)("hf-local under the supervisor (needs torch)", () => {
  it("launches, serves, trains and publishes a version, then stops", async () => {
    const e = await makeExperiment(
      {
        method: "grpo",
        policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30001/v1", model: "tiny" },
        trainer: { backend: "hf-local" },
        hyper: { batchSize: 2, lr: 0.01 },
      },
      { by: ADMIN },
    );
    const settings = supervisorSettings({
      CONTROL_PLANE_URL: server.url,
      HF_LOCAL_MODEL: "tiny",
      HF_LOCAL_PYTHON: python!,
      HF_LOCAL_SERVE_PORT: "0",
      HF_LOCAL_SAVE_DIR: mkdtempSync(path.join(tmpdir(), "hf-local-")),
    });
    const preview = await launchPreview(admin, e.id, settings);
    expect(preview.error).toBeNull();
    expect(preview.command).toContain("-m integrations.hf.train");
    expect(preview.notes.join(" ")).toMatch(/no GPU is used/);

    const run = await startRun(admin, e.id);
    sup = new RunSupervisor({ settings, log: () => {}, experimentIds: [e.id] });
    await sup.tick();
    const launched = await db().run.findUniqueOrThrow({ where: { id: run.id } });
    expect(launched.externalJobId).toMatch(/^hf-local:\d+$/);
    const pgid = Number(launched.externalJobId!.split(":")[1]);

    await makeJudgedSession(e.id, run.id, 2, { tokenIds: () => [111, 107, 257] });
    const version = await waitFor(
      "version 1 published",
      () => db().policyVersion.findFirst({ where: { runId: run.id, version: 1 } }),
      240_000,
    );
    expect(version.checkpointPath).toMatch(/step-000001$/);
    await sup.tick(); // the supervisor maps the live process onto the run
    const live = await db().run.findUniqueOrThrow({ where: { id: run.id } });
    expect(live.status).toBe("RUNNING");
    expect(live.rolloutUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(live.prmUrl).toBe(live.rolloutUrl!.replace(/\/v1$/, "/base/v1"));

    await actOnRun(admin, { id: run.id, action: "stop" });
    expect((await sup.tick()).stopped).toEqual([run.id]);
    expect(groupAlive(pgid)).toBe(false);
  }, 300_000);
});

describe("hf-local launch preview: LoRA or full fine-tuning", () => {
  it("follows the experiment's choice over the host's, and refuses full fine-tuning that does not fit", async () => {
    const experiment = (finetune?: "lora" | "full" | "auto") =>
      makeExperiment(
        {
          method: "grpo",
          policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30001/v1", model: "Qwen/Qwen3-8B" },
          trainer: { backend: "hf-local", ...(finetune ? { finetune } : {}) },
        },
        { by: ADMIN },
      );
    const settings = supervisorSettings({
      CONTROL_PLANE_URL: server.url,
      HF_LOCAL_GPU_MEMORY_GB: "141",
      HF_LOCAL_FINETUNE: "full",
    });
    // The host's default (full): Qwen3-8B needs about 230 GB fully fine-tuned.
    const hostFull = await launchPreview(admin, (await experiment()).id, settings);
    expect(hostFull.command).toBeNull();
    expect(hostFull.error).toMatch(
      /Qwen3-8B will not fit on one 141 GB GPU with full fine-tuning: it needs about 230\.3 GB .*Adam 122\.2/,
    );
    // The experiment's LoRA wins: it fits, and the process is told so.
    const lora = await launchPreview(admin, (await experiment("lora")).id, settings);
    expect(lora.error).toBeNull();
    expect(lora.command).toContain("HF_FINETUNE=lora");
    expect(lora.notes.join(" ")).toMatch(/LoRA rank 16.*Memory: about 63\.4 GB/);
    // auto: full does not fit, so LoRA.
    const auto = await launchPreview(admin, (await experiment("auto")).id, settings);
    expect(auto.command).toContain("HF_FINETUNE=lora");
  });
});
