// hf-local per user end to end against the running API, with the real entry point (python -m integrations.hf.train,
// HF_PER_USER=1 as the backend sets it for a per-user experiment) on the tiny CPU model: it leases one user's batch at
// a time, trains that user's LoRA, writes a PEFT folder per version and acknowledges the lease with it, which registers
// the folder as the user's served version (SGLang would load it per user: engineAdapters.test.ts). Each version's
// training step holds that user's samples only, and no shared policy version is made. A new process resumes a user from
// their served folder (named by the lease) and numbers their next version past it.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { terminateGroup } from "../../../../server/runs/backends/localProcess/processGroup";
import { db } from "../../../../server/platform/db/client";
import { startApiServer } from "../../../helpers/apiServer";
import { ADMIN, makeExperiment, makeRun } from "../../../helpers/fixtures";
import { torchPython } from "../../../helpers/torchPython";
import { waitFor } from "../../../helpers/waitFor";
import { makeJudgedSession, trainerKey } from "./helpers";

const root = path.resolve(import.meta.dirname, "../../../..");
const artifacts = path.join(root, ".test-artifacts");
const python = torchPython();
/** The tiny model's byte tokenizer: "ok" then <|im_end|> (257). */
const OK_IDS = [111, 107, 257];

let api: Awaited<ReturnType<typeof startApiServer>>;
let trainer: ChildProcess | null = null;

beforeAll(async () => {
  process.env.ADAPTER_DIRS = artifacts;
  api = await startApiServer();
});
afterAll(async () => {
  if (trainer?.pid) await terminateGroup(trainer.pid, 2000);
  await api.close();
  delete process.env.ADAPTER_DIRS;
});

describe.skipIf(!python)("hf-local per user against the console (needs torch)", () => {
  it("trains one adapter per user from that user's leases, registers each version's PEFT folder, and resumes a user in a new process", async () => {
    let output = "";
    const e = await makeExperiment(
      {
        method: "grpo",
        personalization: "per-user",
        perUser: { minSamples: 2, heldOutFraction: 0 },
        policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30001/v1", model: "tiny", loraAdapters: "sglang" },
        trainer: { backend: "hf-local" },
      },
      { by: ADMIN },
    );
    const run = await makeRun(e.id, { status: "RUNNING", trainerBackend: "hf-local" });
    for (const user of ["maya", "leo"]) {
      const { turnIds } = await makeJudgedSession(e.id, run.id, 2, { tokenIds: () => OK_IDS });
      await db().turn.updateMany({ where: { id: { in: turnIds } }, data: { endUserId: user } });
    }
    const saveDir = path.join(artifacts, `hf-per-user-${run.id}`);
    const key = await trainerKey(e.id);
    const startTrainer = (runId: string) => {
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        PYTHONDONTWRITEBYTECODE: "1",
        CONTROL_PLANE_URL: api.url,
        CONTROL_PLANE_API_KEY: key,
        RUN_ID: runId,
        OPENCLAW_METHOD: "grpo",
        HF_MODEL: "tiny",
        HF_PER_USER: "1",
        HF_LORA_RANK: "8",
        HF_LORA_ALPHA: "16",
        HF_LEARNING_RATE: "0.01",
        HF_SERVE_PORT: "0",
        HF_SAVE_DIR: saveDir,
        OPENCLAW_HEARTBEAT_S: "1",
      };
      trainer = spawn(python!, ["-m", "integrations.hf.train"], {
        cwd: root,
        detached: true,
        env: env as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"],
      });
      trainer.stdout!.on("data", (d: Buffer) => (output += d.toString()));
      trainer.stderr!.on("data", (d: Buffer) => (output += d.toString()));
    };
    startTrainer(run.id);

    const adapters = await waitFor(
      "both users' first versions registered",
      async () => {
        const rows = await db().userAdapter.findMany({ where: { experimentId: e.id }, orderBy: { endUserId: "asc" } });
        return rows.length === 2 ? rows : null;
      },
      240_000,
    );
    expect(adapters.map((a) => [a.endUserId, a.version, a.state, a.samples, a.rank, a.alpha])).toEqual([
      ["leo", 1, "PROMOTED", 2, 8, 16],
      ["maya", 1, "PROMOTED", 2, 8, 16],
    ]);
    for (const a of adapters) {
      expect(a.path!.startsWith(saveDir), output).toBe(true);
      expect(existsSync(path.join(a.path!, "adapter_model.safetensors")), output).toBe(true);
      const config = JSON.parse(readFileSync(path.join(a.path!, "adapter_config.json"), "utf8"));
      expect(config).toMatchObject({ peft_type: "LORA", r: 8, lora_alpha: 16, base_model_name_or_path: "tiny" });
      // The lease that made this version trained this user's turns only.
      const lease = await db().batchLease.findFirstOrThrow({ where: { adapterId: a.id } });
      expect(lease.endUserId).toBe(a.endUserId);
      const turns = await db().turn.findMany({
        where: { samples: { some: { stepId: lease.stepId } } },
        select: { endUserId: true },
      });
      expect(turns.map((t) => t.endUserId)).toEqual([a.endUserId, a.endUserId]);
    }
    expect(adapters[0]!.path).not.toBe(adapters[1]!.path);
    expect(await db().policyVersion.count({ where: { experimentId: e.id } })).toBe(0);
    // The base is the run's PRM; the users' adapters are the engine's to serve, so no rollout URL is reported.
    const stored = await db().run.findUniqueOrThrow({ where: { id: run.id } });
    expect(stored.rolloutUrl).toBeNull();
    expect(stored.prmUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/base\/v1$/);

    // A new process (the next run of the experiment) holds no user's weights: the lease names Maya's served v1, so
    // her v2 trains on from that folder's weights and is numbered past it; v1's folder is left as it was.
    await terminateGroup(trainer!.pid!, 2000);
    const maya1 = adapters[1]!;
    const before = readFileSync(path.join(maya1.path!, "adapter_model.safetensors"));
    const next = await makeRun(e.id, { status: "RUNNING", trainerBackend: "hf-local" });
    const { turnIds } = await makeJudgedSession(e.id, next.id, 2, { tokenIds: () => OK_IDS });
    await db().turn.updateMany({ where: { id: { in: turnIds } }, data: { endUserId: "maya" } });
    output = "";
    startTrainer(next.id);
    const maya2 = await waitFor(
      "Maya's second version registered by the new process",
      () => db().userAdapter.findFirst({ where: { experimentId: e.id, endUserId: "maya", version: 2 } }),
      240_000,
    );
    expect(maya2.path, output).toMatch(/\/v000002$/);
    expect(maya2.parentId).toBe(maya1.id);
    expect(output).toMatch(/resumed a user from their served version 1 \(Adam moments too\)/);
    expect(readFileSync(path.join(maya1.path!, "adapter_model.safetensors")).equals(before)).toBe(true);
  }, 420_000);
});
