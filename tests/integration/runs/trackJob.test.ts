// The track-job preview over REST: a user gets the ReTool / terminal-rl slime command (as the fork's scripts
// define it) and its GPU split to run on their cluster; a split that cannot work is a 400 saying why, and only a
// signed-in caller or key may ask.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../helpers/apiServer";
import { ADMIN, api, makeExperiment, makeKey, makeRun } from "../../helpers/fixtures";
import { examplesTaskSet } from "../../helpers/environments";
import { EnvironmentCreateInput } from "../../../server/environments/schemas";
import { createEnvironment } from "../../../server/environments/service";
import { launchPreview } from "../../../server/runs/preview";
import { supervisorSettings } from "../../../server/runs/settings";
import { makeEpisodeGroup, SLIME_EXPERIMENT } from "../training/leases/helpers";

let server: Awaited<ReturnType<typeof startApiServer>>;
beforeAll(async () => {
  server = await startApiServer();
});
afterAll(() => server.close());

const retool = {
  track: "retool",
  hfCheckpoint: "/models/Qwen3-4B",
  refLoad: "/models/Qwen3-4B_torch_dist",
  saveDir: "/ckpt/retool",
  promptData: "/data/dapo.jsonl",
};

describe("track job preview", () => {
  it("returns the command and split, with step_wise and the PRM's own GPUs when a PRM is set", async () => {
    const reader = api(server.url, { bearer: await makeKey(["read"]) });
    const plain = await reader("POST", "/api/v1/gpu/track-jobs/preview", retool);
    expect(plain.status).toBe(200);
    expect(plain.body.split).toEqual({ actor: 4, rollout: 4, prm: 0, total: 8 });
    expect(plain.body.command).toMatch(/^export PYTHONPATH=/m);
    expect(plain.body.command).toMatch(/python3 slime\/train_async\.py/);
    expect(plain.body.command).toMatch(/--advantage-estimator grpo/);

    const withPrm = await reader("POST", "/api/v1/gpu/track-jobs/preview", {
      ...retool,
      prm: { modelPath: "/models/Qwen3-4B" },
    });
    expect(withPrm.status).toBe(200);
    expect(withPrm.body.split).toEqual({ actor: 2, rollout: 4, prm: 2, total: 8 });
    expect(withPrm.body.command).toMatch(/--advantage-estimator step_wise/);
    // The planner's input for the GPU grid: the PRM's two GPUs after actor and rollout.
    expect(withPrm.body.gpuSplit).toMatchObject({ actorGpus: 2, rolloutGpus: 4, prmGpus: 2, prmGpusPerEngine: 2 });
  });

  it("refuses a split that does not fit, a terminal job without its pool, and an anonymous caller", async () => {
    const reader = api(server.url, { bearer: await makeKey(["read"]) });
    const over = await reader("POST", "/api/v1/gpu/track-jobs/preview", {
      ...retool,
      gpu: { actorGpus: 8, rolloutGpus: 4 },
    });
    expect(over.status).toBe(400);
    expect(over.body.error?.message).toMatch(/exceed the 8 of 1 node/);
    const noPool = await reader("POST", "/api/v1/gpu/track-jobs/preview", { ...retool, track: "terminal" });
    expect(noPool.status).toBe(400);
    expect(noPool.body.error?.message).toMatch(/envServerUrl/);
    const anonymous = await api(server.url)("POST", "/api/v1/gpu/track-jobs/preview", retool);
    expect(anonymous.status).toBe(401);
  });
});

describe("a run's launch preview", () => {
  const settings = () =>
    supervisorSettings({
      CONTROL_PLANE_URL: server.url,
      SLIME_HF_CHECKPOINT: "/models/Qwen3-4B",
      SLIME_SAVE_DIR: "/ckpt",
      SLIME_DIR: "/opt/slime",
    });

  it("an experiment with environments launches its track's job, leasing groups of the n it launches", async () => {
    const e = await makeExperiment(
      {
        ...SLIME_EXPERIMENT,
        trainer: { ...SLIME_EXPERIMENT.trainer, gpu: { actorGpus: 2, rolloutGpus: 4, prmGpus: 2 } },
      },
      { by: ADMIN },
    );
    const env = await createEnvironment(
      ADMIN,
      EnvironmentCreateInput.parse({ experiment: e.id, name: "shell", tools: ["bash"] }),
    );
    const run = await makeRun(e.id);
    const { taskId } = await examplesTaskSet(e.id);
    await makeEpisodeGroup(e.id, run.id, env.id, taskId("examples/count-errors"), [
      { outcome: 1, prm: [null] },
      { outcome: 0, prm: [null] },
      { outcome: 1, prm: [null] },
    ]);
    const preview = await launchPreview(ADMIN, e.id, settings());
    expect(preview.error).toBeNull();
    expect(preview.command).toMatch(/OPENCLAW_LEASE_UNIT=episodes/);
    expect(preview.command).toMatch(/--n-samples-per-prompt 3\b/);
    expect(preview.command).toMatch(/--advantage-estimator step_wise/);
    expect(preview.command).toMatch(/--prm-num-gpus 2\b/);
    expect(preview.notes.join(" ")).toMatch(/Track job \(terminal\)/);
    expect(preview.notes.join(" ")).toMatch(/actor 2 .*rollout 4 .*PRM 2/);
  });

  it("an experiment without environments keeps the conversation job", async () => {
    const e = await makeExperiment(SLIME_EXPERIMENT, { by: ADMIN });
    const preview = await launchPreview(ADMIN, e.id, settings());
    expect(preview.error).toBeNull();
    expect(preview.command).toMatch(/--n-samples-per-prompt 1\b/);
    expect(preview.command).not.toMatch(/OPENCLAW_LEASE_UNIT/);
  });
});
