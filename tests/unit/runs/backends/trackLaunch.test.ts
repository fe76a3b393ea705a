// A run of an environment experiment: the Ray backend submits the track's job (slime/trackLaunch.ts), which leases
// the console's episode groups, with the run's control-plane variables and the planner's split; any other run
// keeps the conversation job. (Its flags against the fork's parser: slimeContract.test.ts.)
import { describe, expect, it } from "vitest";
import { RunLaunchSchema, type RunLaunchConfigInput } from "../../../../server/runs/backends/backend";
import { buildRaySubmissions, RaySlimeBackend } from "../../../../server/runs/backends/ray/backend";
import { slimeCommandFor } from "../../../../server/runs/backends/slime/trackLaunch";

const launch = (config: Partial<RunLaunchConfigInput> = {}) =>
  RunLaunchSchema.parse({
    runId: "run_1",
    experimentSlug: "exp",
    config: {
      controlPlaneUrl: "http://console:3000",
      apiKey: "ocrl_key_1",
      method: "grpo",
      slime: { hfCheckpoint: "/models/Qwen3-4B", saveDir: "/ckpt/exp/run-1" },
      ray: { address: "http://ray:8265", workingDir: "/opt/slime" },
      gpu: { nodes: 1, gpusPerNode: 8, actorGpus: 2, rolloutGpus: 4, prmGpus: 2, prmGpusPerEngine: 2 },
      ...config,
    },
  });
const at = (argv: string[], flag: string) => argv[argv.indexOf(flag) + 1];
const episodes = { track: "retool" as const, nSamplesPerPrompt: 4, groupsPerRollout: 8 };

describe("the slime command of a run", () => {
  it("an environment experiment's run gets its track job: n episodes per group, step_wise with the PRM's own GPUs", () => {
    const cmd = slimeCommandFor(launch({ episodes }));
    const argv = cmd.argv.slice(2);
    expect(cmd.argv.slice(0, 2)).toEqual(["python3", "train_async.py"]);
    expect([at(argv, "--n-samples-per-prompt"), at(argv, "--rollout-batch-size")]).toEqual(["4", "8"]);
    expect(at(argv, "--advantage-estimator")).toBe("step_wise");
    expect([at(argv, "--prm-num-gpus"), at(argv, "--prm-model-path")]).toEqual(["2", "/models/Qwen3-4B"]);
    expect(at(argv, "--rollout-function-path")).toBe("integrations.slime.rollout.generate_rollout");
    expect(cmd.env).toMatchObject({
      RUN_ID: "run_1",
      CONTROL_PLANE_URL: "http://console:3000",
      OPENCLAW_LEASE_UNIT: "episodes",
    });
    expect(cmd.plan.summary).toMatchObject({
      actor: { gpus: 2 },
      rollout: { gpus: 4 },
      prm: { gpus: 2, external: false },
    });
    expect(cmd.plan.nodes[0]!.gpus.map((g) => g.role)).toEqual([
      "actor",
      "actor",
      "rollout",
      "rollout",
      "rollout",
      "rollout",
      "prm",
      "prm",
    ]);

    // What Ray gets: the same command, the lease unit among the env vars, the key never in them.
    const { main } = buildRaySubmissions(launch({ episodes }));
    expect(main.entrypoint).toMatch(/^cd \/opt\/slime && python3 train_async\.py .*--advantage-estimator step_wise/);
    expect(main).toMatchObject({ runtime_env: { env_vars: { OPENCLAW_LEASE_UNIT: "episodes" } } });
    expect(JSON.stringify(main.runtime_env)).not.toContain("ocrl_key_1");
    expect(new RaySlimeBackend().preview(launch({ episodes })).command).toContain("OPENCLAW_LEASE_UNIT=episodes");
  });

  it("without a PRM the track job is grpo; without environments the conversation job runs (one sample per prompt)", () => {
    const plain = slimeCommandFor(launch({ episodes, gpu: { actorGpus: 4, rolloutGpus: 4, prmGpus: 0 } }));
    expect(at(plain.argv, "--advantage-estimator")).toBe("grpo");
    expect(plain.argv).not.toContain("--prm-enable");
    const conversation = slimeCommandFor(launch());
    expect(at(conversation.argv, "--n-samples-per-prompt")).toBe("1");
    expect(conversation.env.OPENCLAW_LEASE_UNIT).toBeUndefined();
  });

  it("refuses a track job without a save dir or on upstream slime, with the reason", () => {
    expect(() => slimeCommandFor(launch({ episodes, slime: { hfCheckpoint: "/models/Qwen3-4B" } }))).toThrowError(
      /SLIME_SAVE_DIR/,
    );
    expect(() =>
      slimeCommandFor(
        launch({ episodes, slime: { hfCheckpoint: "/models/Qwen3-4B", saveDir: "/c", profile: "upstream-slime" } }),
      ),
    ).toThrowError(/fork/);
  });
});
