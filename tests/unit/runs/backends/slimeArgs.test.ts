import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GPU_SPLIT_PRESETS, GpuSplitError, type GpuSplitInput } from "../../../../server/gpu/plan";
import { RunLaunchSchema, type RunLaunchConfigInput } from "../../../../server/runs/backends/backend";
import {
  buildSlimeCommand,
  formatCommand,
  methodArgs,
  shellQuote,
  SLIME_RESUME_MODULE,
  SLIME_ROLLOUT_FUNCTION_PATH,
} from "../../../../server/runs/backends/slime/args";
import { ExperimentConfigSchema } from "../../../../server/config/experimentConfig";
import { SLIME_PROFILES } from "../../../../server/runs/backends/slime/profiles";
import { checkSlimeArgv } from "../../../../server/runs/backends/slime/validate";

function launch(config: Partial<RunLaunchConfigInput> = {}, gpu?: GpuSplitInput) {
  return RunLaunchSchema.parse({
    runId: "run_abc123",
    experimentSlug: "my-exp",
    config: {
      controlPlaneUrl: "http://console:3000",
      apiKey: "ocrl_secret_key_value",
      slime: { hfCheckpoint: "/models/Qwen3-4B" },
      ...(gpu ? { gpu } : {}),
      ...config,
    },
  });
}

/** Values following `flag` up to the next flag; undefined when the flag is absent. */
function flag(argv: string[], name: string): string[] | undefined {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const values: string[] = [];
  for (let j = i + 1; j < argv.length && !argv[j].startsWith("--"); j++) values.push(argv[j]);
  return values;
}

const presetSplit = (id: string) => GPU_SPLIT_PRESETS.find((p) => p.id === id)!.split;

/** Upstream's hybrid launcher at the pinned commit (run_qwen3_4b_openclaw_topk_select.sh, extracted). */
const hybridContract = (
  JSON.parse(readFileSync("tests/fixtures/slime/sample-contract.json", "utf8")) as {
    commits: { hybrid: { launcher: { env: Record<string, string>; loss_flags: string[]; script: string } } | null }[];
  }
).commits.at(-1)!.hybrid!;
const upstreamLauncher = hybridContract.launcher.env;

describe("GPU flags per preset", () => {
  it("8-GPU full fine-tune matches the reference script's flags", () => {
    const { argv } = buildSlimeCommand(launch({}, presetSplit("openclaw-8gpu-full")));
    expect(argv.slice(0, 2)).toEqual(["python3", "train_async.py"]);
    expect(flag(argv, "--actor-num-nodes")).toEqual(["1"]);
    expect(flag(argv, "--actor-num-gpus-per-node")).toEqual(["4"]);
    expect(flag(argv, "--rollout-num-gpus")).toEqual(["2"]);
    expect(flag(argv, "--rollout-num-gpus-per-engine")).toEqual(["2"]);
    expect(flag(argv, "--num-gpus-per-node")).toEqual(["8"]);
    expect(flag(argv, "--prm-enable")).toEqual([]);
    expect(flag(argv, "--prm-num-gpus")).toEqual(["2"]);
    expect(flag(argv, "--prm-num-gpus-per-engine")).toEqual(["2"]);
    expect(flag(argv, "--prm-model-path")).toEqual(["/models/Qwen3-4B"]);
    expect(flag(argv, "--colocate")).toBeUndefined();
    expect(flag(argv, "--train-backend")).toBeUndefined();
  });

  it("LoRA 4-GPU preset: 2/1/1, TP 1, FSDP backend and the scripts' LoRA flags", () => {
    // LoRA trains on the fork's FSDP backend, which runs only GRPO (its actor never calls a custom loss).
    const { argv } = buildSlimeCommand(
      launch({ method: "grpo", lora: { enabled: true } }, presetSplit("openclaw-4gpu-lora")),
    );
    expect(flag(argv, "--actor-num-gpus-per-node")).toEqual(["2"]);
    expect(flag(argv, "--rollout-num-gpus")).toEqual(["1"]);
    expect(flag(argv, "--rollout-num-gpus-per-engine")).toEqual(["1"]);
    expect(flag(argv, "--num-gpus-per-node")).toEqual(["4"]);
    expect(flag(argv, "--prm-num-gpus")).toEqual(["1"]);
    expect(flag(argv, "--prm-num-gpus-per-engine")).toEqual(["1"]);
    expect(flag(argv, "--train-backend")).toEqual(["fsdp"]);
    expect(flag(argv, "--use-lora")).toEqual([]);
    expect(flag(argv, "--lora-rank")).toEqual(["16"]);
    expect(flag(argv, "--lora-alpha")).toEqual(["32"]);
    expect(flag(argv, "--lora-target-modules")).toEqual(["q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj"]);
    // FSDP takes no Megatron architecture or parallelism flags (they are fatal in its parser).
    expect(flag(argv, "--num-layers")).toBeUndefined();
    expect(flag(argv, "--tensor-model-parallel-size")).toBeUndefined();
    expect([flag(argv, "--gradient-checkpointing"), flag(argv, "--max-tokens-per-gpu")]).toEqual([[], ["8192"]]);
  });

  it("LoRA with combine, opd or topk is refused on the fork (FSDP ignores the custom loss / raises for OPD)", () => {
    for (const method of ["combine", "opd", "topk"] as const) {
      expect(() =>
        buildSlimeCommand(launch({ method, lora: { enabled: true } }, presetSplit("openclaw-4gpu-lora"))),
      ).toThrowError(/FSDP \(LoRA\) backend/);
    }
  });

  it("2 nodes × 8 and a 2-node actor", () => {
    const two = buildSlimeCommand(launch({}, presetSplit("2-nodes-x-8"))).argv;
    expect([flag(two, "--actor-num-nodes"), flag(two, "--actor-num-gpus-per-node")]).toEqual([["1"], ["8"]]);
    expect([flag(two, "--rollout-num-gpus"), flag(two, "--prm-num-gpus")]).toEqual([["4"], ["4"]]);

    const big = buildSlimeCommand(launch({}, { nodes: 4, actorGpus: 16, rolloutGpus: 8, prmGpus: 8 })).argv;
    expect([flag(big, "--actor-num-nodes"), flag(big, "--actor-num-gpus-per-node")]).toEqual([["2"], ["8"]]);
  });

  it("colocate runs the synchronous train.py with --colocate; an external PRM drops the PRM flags", () => {
    const { argv } = buildSlimeCommand(launch({}, { colocate: true, actorGpus: 4, rolloutGpus: 4, prmGpus: 0 }));
    expect(argv[1]).toBe("train.py");
    expect(flag(argv, "--colocate")).toEqual([]);
    expect(argv.some((a) => a.startsWith("--prm-"))).toBe(false);
  });

  it("an invalid split throws with the planner's field errors", () => {
    expect(() => buildSlimeCommand(launch({}, { rolloutGpus: 3, prmGpus: 0 }))).toThrowError(GpuSplitError);
    expect(() => buildSlimeCommand(launch({}, { rolloutGpus: 3, prmGpus: 0 }))).toThrowError(
      /rollout GPUs \(3\) must be a multiple/,
    );
  });
});

describe("algorithm flags", () => {
  it("defaults (combine): GRPO advantages, custom combine loss, clip 0.2/0.28, KL loss, lr, batch", () => {
    const { argv } = buildSlimeCommand(launch());
    expect(flag(argv, "--advantage-estimator")).toEqual(["grpo"]);
    expect(flag(argv, "--disable-rewards-normalization")).toEqual([]);
    expect(flag(argv, "--loss-type")).toEqual(["custom_loss"]);
    expect(flag(argv, "--custom-loss-function-path")).toEqual([
      "integrations.slime.combine_loss.combine_loss_function",
    ]);
    expect(flag(argv, "--eps-clip")).toEqual(["0.2"]);
    expect(flag(argv, "--eps-clip-high")).toEqual(["0.28"]);
    expect(flag(argv, "--use-kl-loss")).toEqual([]);
    expect(flag(argv, "--kl-loss-coef")).toEqual(["0"]);
    expect(flag(argv, "--kl-loss-type")).toEqual(["low_var_kl"]);
    expect(flag(argv, "--lr")).toEqual(["1e-5"]);
    expect(flag(argv, "--rollout-batch-size")).toEqual(["16"]);
    expect(flag(argv, "--rollout-function-path")).toEqual([SLIME_ROLLOUT_FUNCTION_PATH]);
    expect(flag(argv, "--disable-rollout-global-dataset")).toEqual([]);
    expect(flag(argv, "--ref-load")).toEqual(["/models/Qwen3-4B"]);
    // The HF checkpoint as --ref-load loads only in bridge mode on the fork.
    expect(flag(argv, "--megatron-to-hf-mode")).toEqual(["bridge"]);
  });

  it("grpo, opd and topk", () => {
    const hyper = { lr: 2.5e-6, epsClip: 0.1, epsClipHigh: 0.3, klCoef: 0.02, batchSize: 4 };
    const grpo = buildSlimeCommand(launch({ method: "grpo", hyperparameters: hyper })).argv;
    expect(flag(grpo, "--loss-type")).toBeUndefined();
    expect([flag(grpo, "--lr"), flag(grpo, "--kl-loss-coef"), flag(grpo, "--rollout-batch-size")]).toEqual([
      ["2.5e-6"],
      ["0.02"],
      ["4"],
    ]);
    expect([flag(grpo, "--eps-clip"), flag(grpo, "--eps-clip-high")]).toEqual([["0.1"], ["0.3"]]);

    const opd = buildSlimeCommand(launch({ method: "opd" })).argv;
    expect(flag(opd, "--advantage-estimator")).toEqual(["on_policy_distillation"]);

    // topk: upstream's top-K OPD flags (openclaw-combine/run_qwen3_4b_openclaw_topk_select.sh), with rewards left
    // unnormalised so the fork's rollout keeps every single-sample group, and advantages computed (the actor
    // merges the in-job teacher's top-K only then).
    const l = launch({ method: "topk", hyperparameters: { distillTopK: 20 } });
    const topk = methodArgs(l, l.config.slime!);
    expect(flag(topk, "--advantage-estimator")).toEqual(["grpo"]);
    expect(flag(topk, "--disable-rewards-normalization")).toEqual([]);
    expect(flag(topk, "--custom-loss-function-path")).toEqual(["integrations.slime.topk_loss.topk_opd_loss_function"]);
    expect(flag(topk, "--distill-topk")).toEqual(["20"]);
    expect(flag(topk, "--distill-subset-mode")).toEqual(["student"]);
    expect(flag(topk, "--disable-compute-advantages-and-returns")).toBeUndefined();
  });

  it("checkpointing, dynamic batching, a custom loss override and extra args (last, so they win)", () => {
    const { argv } = buildSlimeCommand(
      launch({
        slime: {
          hfCheckpoint: "/m/Qwen3-8B",
          refLoad: "/ref",
          saveDir: "/ckpt",
          saveInterval: 5,
          maxTokensPerGpu: 8192,
          customLossFunctionPath: "my.loss",
          extraArgs: ["--rollout-temperature", "0.6"],
        },
      }),
    );
    expect([flag(argv, "--save"), flag(argv, "--save-interval"), flag(argv, "--ref-load")]).toEqual([
      ["/ckpt"],
      ["5"],
      ["/ref"],
    ]);
    expect([flag(argv, "--use-dynamic-batch-size"), flag(argv, "--max-tokens-per-gpu")]).toEqual([[], ["8192"]]);
    expect(flag(argv, "--custom-loss-function-path")).toEqual(["my.loss"]);
    expect(argv.slice(-2)).toEqual(["--rollout-temperature", "0.6"]);
    // A converted torch_dist --ref-load loads in the default raw mode.
    expect(flag(argv, "--megatron-to-hf-mode")).toBeUndefined();
  });
});

describe("the experiment's loss knobs", () => {
  it("dual-clip and advantage whitening become slime's flags, off by default", () => {
    const on = buildSlimeCommand(
      launch({ method: "combine", hyperparameters: { dualClip: 3, normalizeAdvantages: true, advClamp: 2 } }),
    );
    expect(flag(on.argv, "--eps-clip-c")).toEqual(["3"]);
    expect(flag(on.argv, "--normalize-advantages")).toEqual([]);
    expect(on.env.OPENCLAW_OPD_ADV_CLAMP).toBe("2");
    const off = buildSlimeCommand(launch({ method: "grpo" })).argv;
    expect([flag(off, "--eps-clip-c"), flag(off, "--normalize-advantages")]).toEqual([undefined, undefined]);
  });

  it("top-K on slime runs on the 4-way split with the in-job teacher, and is refused with the reason elsewhere", () => {
    const fourWay = { prmGpus: 1, prmGpusPerEngine: 1, prmTeacherGpus: 1 };
    const topk = (config: Partial<RunLaunchConfigInput> = {}, gpu: GpuSplitInput = fourWay) =>
      buildSlimeCommand(
        launch({ method: "topk", hyperparameters: { distillTopK: 20, topkDiffClip: 0.5 }, ...config }, gpu),
      );
    const cmd = topk();
    expect(cmd.argv[1]).toBe("train_async.py");
    expect(flag(cmd.argv, "--prm-teacher-num-gpus")).toEqual(["1"]);
    expect(cmd.env).toMatchObject({
      OPENCLAW_TOPK_W_RL: "0",
      OPENCLAW_TOPK_W_OPD: "1",
      OPENCLAW_TOPK_ADV_DIFF_CLIP: "0.5",
    });
    expect(cmd.env.OPENCLAW_COMBINE_OPD_TEACHER_SOURCE).toBeUndefined();
    // Method topk scores the judge's one hint: no candidates.
    expect(cmd.env.OPENCLAW_TOPK_MAX_CAND).toBeUndefined();
    // The difference clip's default is upstream's launcher's (sample-contract.json hybrid.launcher.env).
    expect(buildSlimeCommand(launch({ method: "topk" }, fourWay)).env.OPENCLAW_TOPK_ADV_DIFF_CLIP).toBe(
      upstreamLauncher.OPENCLAW_TOPK_ADV_DIFF_CLIP.replace(/\.0$/, ""),
    );
    // No in-job teacher: nothing gathers the teacher's log-probs at the student's top-K.
    expect(() => topk({}, { prmGpus: 1, prmGpusPerEngine: 1 })).toThrowError(/needs the in-job Megatron PRM teacher/);
    // Colocated: train.py has no teacher gather pass (the planner refuses colocating PRM GPUs first; the argv
    // check says why for top-K on its own).
    const ctx = {
      profile: SLIME_PROFILES["openclaw-rl-fork"],
      backend: "megatron" as const,
      model: null,
      prmModel: null,
      nodes: 1,
      prmTeacherGpus: 1,
      method: "topk" as const,
    };
    expect(checkSlimeArgv(["--colocate", "--distill-topk", "4"], ctx).other).toContain(
      "top-K OPD needs train_async.py's teacher gather pass, which the colocated train.py lacks: do not colocate",
    );
    // LoRA (FSDP): no custom loss, no teacher role.
    expect(() => topk({ lora: { enabled: true } })).toThrowError(/FSDP/);
    // Operator overrides that would leave the teacher's top-K out of the batch, or another subset.
    for (const [extra, why] of [
      [["--disable-compute-advantages-and-returns"], /merges it only when advantages are computed/],
      [["--distill-subset-mode", "overlap"], /--distill-subset-mode overlap is not supported/],
      [["--use-rollout-logprobs"], /drop --use-rollout-logprobs/],
      [["--distill-topk", "0"], /needs --distill-topk above 0/],
    ] as const)
      expect(() => topk({ slime: { hfCheckpoint: "/models/Qwen3-4B", extraArgs: [...extra] } })).toThrowError(why);
    // --distill-topk through the extra arguments of another method is refused too.
    expect(() =>
      buildSlimeCommand(
        launch({ method: "grpo", slime: { hfCheckpoint: "/models/Qwen3-4B", extraArgs: ["--distill-topk", "4"] } }),
      ),
    ).toThrowError(/--distill-topk is for the topk OPD estimator/);
    // The experiment config maps opd + the topk estimator to method topk.
    const input = {
      method: "opd",
      policy: { kind: "sglang", baseUrl: "http://sglang:30000/v1", model: "qwen" },
      trainer: { backend: "ray-slime", rayAddress: "http://h:8265" },
      hyper: { opdEstimator: "topk", topK: 20 },
    };
    expect(ExperimentConfigSchema.parse(input).hyper.opdEstimator).toBe("topk");
  });

  it("combine with the topk estimator is upstream's hybrid: its launcher's loss flags and knobs, one teacher pass per hint candidate", () => {
    const fourWay = { prmGpus: 1, prmGpusPerEngine: 1, prmTeacherGpus: 1 };
    const hybrid = (config: Partial<RunLaunchConfigInput> = {}, gpu: GpuSplitInput = fourWay) =>
      buildSlimeCommand(
        launch(
          {
            method: "combine",
            hyperparameters: { opdEstimator: "topk", distillTopK: 4, wRl: 1, wOpd: 1 },
            hints: { selection: "sequence_optimal", m: 3 },
            ...config,
          },
          gpu,
        ),
      );
    const cmd = hybrid();
    expect(cmd.argv[1]).toBe(hybridContract.launcher.script);
    // Upstream's TOPK_SELECT_ARGS with its launcher's values, flag for flag (our loss module in place of its own).
    const resolved = hybridContract.launcher.loss_flags.map((w) => {
      const name = /^"\$\{(\w+)\}"$/.exec(w)?.[1];
      return name ? upstreamLauncher[name] : w;
    });
    for (let i = 0; i < resolved.length; i++) {
      if (!resolved[i].startsWith("--")) continue;
      const values: string[] = [];
      for (let j = i + 1; j < resolved.length && !resolved[j].startsWith("--"); j++) values.push(resolved[j]);
      const ours = flag(cmd.argv, resolved[i]);
      if (resolved[i] === "--custom-loss-function-path")
        expect(ours).toEqual(["integrations.slime.topk_loss.topk_opd_loss_function"]);
      // Same words, numbers compared as numbers (upstream writes 0.0 and 0.00 where we write 0).
      else
        expect(
          ours?.map((o, k) => (o === values[k] || Number(o) === Number(values[k]) ? values[k] : o)),
          resolved[i],
        ).toEqual(values);
    }
    expect(cmd.env).toMatchObject({
      OPENCLAW_METHOD: "combine",
      OPENCLAW_COMBINE_OPD_TEACHER_SOURCE: "megatron",
      OPENCLAW_TOPK_W_RL: "1",
      OPENCLAW_TOPK_W_OPD: "1",
      OPENCLAW_TOPK_ADV_DIFF_CLIP: "1",
      OPENCLAW_TOPK_MAX_CAND: "3",
    });
    expect(flag(cmd.argv, "--prm-teacher-num-gpus")).toEqual(["1"]);
    // The experiment's weights and the judge's hint policy travel; longest records only the count (no such choice).
    const weighted = hybrid({
      hyperparameters: { opdEstimator: "topk", distillTopK: 8, wRl: 0, wOpd: 2, topkDiffClip: 0 },
      hints: { selection: "longest", m: 5 },
    });
    expect(weighted.env).toMatchObject({
      OPENCLAW_TOPK_W_RL: "0",
      OPENCLAW_TOPK_W_OPD: "2",
      OPENCLAW_TOPK_ADV_DIFF_CLIP: "0",
      OPENCLAW_TOPK_MAX_CAND: "5",
    });
    expect([flag(weighted.argv, "--hint-m"), flag(weighted.argv, "--hint-selection")]).toEqual([["5"], undefined]);
    // Whitening (the experiment's choice, off in upstream's launcher) applies to the GRPO term.
    expect(
      flag(
        hybrid({ hyperparameters: { opdEstimator: "topk", normalizeAdvantages: true } }).argv,
        "--normalize-advantages",
      ),
    ).toEqual([]);
    expect(flag(cmd.argv, "--normalize-advantages")).toBeUndefined();
    // The sampled estimator keeps combine's own loss and no candidates.
    const sampled = buildSlimeCommand(launch({ method: "combine" }, fourWay));
    expect(flag(sampled.argv, "--custom-loss-function-path")).toEqual([
      "integrations.slime.combine_loss.combine_loss_function",
    ]);
    expect(sampled.env.OPENCLAW_TOPK_MAX_CAND).toBeUndefined();
    expect(flag(sampled.argv, "--distill-topk")).toBeUndefined();
    // Refused with the reason where upstream cannot run it: no in-job teacher, LoRA (FSDP), upstream slime.
    expect(() => hybrid({}, { prmGpus: 1, prmGpusPerEngine: 1 })).toThrowError(
      /top-K hybrid \(combine with the topk estimator\) on slime needs the in-job Megatron PRM teacher/,
    );
    expect(() => hybrid({ lora: { enabled: true } })).toThrowError(/FSDP/);
    expect(() => hybrid({ slime: { hfCheckpoint: "/models/Qwen3-4B", extraArgs: ["--colocate"] } })).toThrow();
    expect(() =>
      hybrid({ slime: { hfCheckpoint: "/models/Qwen3-4B", profile: "upstream-slime" } }, { prmGpus: 0 }),
    ).toThrowError(/fork/);
  });
});

describe("environment, entrypoint and display", () => {
  it("passes what the rollout integration needs", () => {
    const { env } = buildSlimeCommand(
      launch({
        hyperparameters: { wOpd: 0.5, wRl: 2, maxStaleness: 3 },
        ray: { address: "http://h:8265", pythonEnv: { pythonPath: ["/opt/Megatron-LM", "/srv/console"] } },
      }),
    );
    expect(env).toMatchObject({
      CONTROL_PLANE_URL: "http://console:3000",
      RUN_ID: "run_abc123",
      OPENCLAW_COMBINE_W_OPD: "0.5",
      OPENCLAW_COMBINE_W_RL: "2",
      OPENCLAW_MAX_STALENESS: "3",
      PYTHONPATH: "/opt/Megatron-LM:/srv/console",
    });
    // The run's write key never travels in the environment (Ray shows runtime_env.env_vars on its dashboard).
    expect(Object.values(env)).not.toContain("ocrl_secret_key_value");
  });

  it("the entrypoint is one shell line that a real shell splits back into argv", () => {
    const cmd = buildSlimeCommand(
      launch({
        slime: {
          hfCheckpoint: "/models/My Qwen3-4B's dir",
          extraArgs: ["--wandb-group", 'a;b $(x) "q"', "--wandb-project", ""],
        },
        ray: { address: "http://h:8265", workingDir: "/opt/slime root" },
      }),
    );
    expect(cmd.entrypoint.startsWith("cd '/opt/slime root' && python3 train_async.py ")).toBe(true);
    const line = cmd.entrypoint.slice(cmd.entrypoint.indexOf("&& ") + 3);
    const out = execFileSync("sh", ["-c", `printf '%s\\0' ${line}`])
      .toString("utf8")
      .split("\0")
      .slice(0, -1);
    expect(out).toEqual(cmd.argv);
  });

  it("a bridge-mode job with checkpoints starts through the resume launcher, which restarts from the latest save", () => {
    const cmd = buildSlimeCommand(launch({ slime: { hfCheckpoint: "/models/Qwen3-4B", saveDir: "/ckpt/run 1" } }));
    expect(flag(cmd.argv, "--megatron-to-hf-mode")).toEqual(["bridge"]);
    expect(cmd.entrypoint.startsWith(`python3 -m ${SLIME_RESUME_MODULE} train_async.py `)).toBe(true);
    const out = execFileSync("sh", ["-c", `printf '%s\\0' ${cmd.entrypoint}`])
      .toString("utf8")
      .split("\0")
      .slice(0, -1);
    expect(out).toEqual(["python3", "-m", SLIME_RESUME_MODULE, ...cmd.argv.slice(1)]);
    // What the launcher runs on a restart: slime's own argv plus --load <save> (integrations/slime/resume.py).
    const dir = mkdtempSync(path.join(tmpdir(), "resume-"));
    const save = path.join(dir, "ckpt");
    mkdirSync(save);
    writeFileSync(path.join(save, "latest_checkpointed_iteration.txt"), "7");
    const argv = cmd.argv.slice(1).map((a) => (a === "/ckpt/run 1" ? save : a));
    const resumed = execFileSync("python3", [
      "-c",
      "import json,sys; from integrations.slime.resume import resume_argv; print(json.dumps(resume_argv(sys.argv[1:])))",
      ...argv,
    ]).toString("utf8");
    expect(JSON.parse(resumed)).toEqual([...argv, "--load", save]);
    // A converted torch_dist --ref-load loads in raw mode, where slime resumes by itself: no launcher.
    const raw = buildSlimeCommand(launch({ slime: { hfCheckpoint: "/m/Qwen3-4B", refLoad: "/m/td", saveDir: "/c" } }));
    expect(raw.entrypoint.startsWith("python3 train_async.py ")).toBe(true);
  });

  it("a remote working_dir is not cd-ed into", () => {
    const cmd = buildSlimeCommand(launch({ ray: { address: "http://h:8265", workingDir: "s3://bucket/slime.zip" } }));
    expect(cmd.cwd).toBeUndefined();
    expect(cmd.entrypoint.startsWith("python3 train_async.py ")).toBe(true);
  });

  it("formatCommand: one flag per line, secrets hidden unless revealed", () => {
    const cmd = buildSlimeCommand(
      launch({
        slime: { hfCheckpoint: "/m/Qwen3-4B", extraArgs: ["--wandb-key", "wk_123"] },
        ray: { address: "http://h:8265", workingDir: "/opt/slime" },
      }),
    );
    const text = formatCommand(cmd);
    const lines = text.split("\n");
    expect(lines[0]).toBe("cd /opt/slime");
    expect(lines).toContain("export RUN_ID=run_abc123");
    expect(lines).toContain("python3 train_async.py \\");
    expect(lines).toContain("  --actor-num-gpus-per-node 4 \\");
    expect(lines[lines.length - 1]).toBe("  --wandb-key <hidden>");
    expect(text).not.toContain("ocrl_secret_key_value");
    expect(text).not.toContain("wk_123");

    const revealed = formatCommand(cmd, { revealSecrets: true });
    expect(revealed).toContain("  --wandb-key wk_123");
  });

  it("shellQuote leaves plain words bare and quotes the rest", () => {
    expect(shellQuote("--lr")).toBe("--lr");
    expect(shellQuote("/a/b:c,d=e")).toBe("/a/b:c,d=e");
    expect(shellQuote("")).toBe("''");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
  });

  it("a launch without slime settings is refused", () => {
    expect(() => buildSlimeCommand(launch({ slime: undefined }))).toThrowError(/slime settings/);
  });
});

describe("model presets, profiles and the final argument list", () => {
  it("Qwen3-4B-Thinking-2507 gets the fork's architecture args, --rotary-base 5000000, TP 4 + SP, recompute, chunking and parsers", () => {
    const { argv, model, profile } = buildSlimeCommand(
      launch({ slime: { hfCheckpoint: "/models/Qwen3-4B-Thinking-2507" } }),
    );
    expect([model?.id, profile.id]).toEqual(["qwen3-4b-2507", "openclaw-rl-fork"]);
    expect(flag(argv, "--rotary-base")).toEqual(["5000000"]);
    expect([flag(argv, "--num-layers"), flag(argv, "--hidden-size"), flag(argv, "--num-query-groups")]).toEqual([
      ["36"],
      ["2560"],
      ["8"],
    ]);
    expect([flag(argv, "--tensor-model-parallel-size"), flag(argv, "--sequence-parallel")]).toEqual([["4"], []]);
    expect([flag(argv, "--recompute-granularity"), flag(argv, "--log-probs-chunk-size")]).toEqual([["full"], ["1024"]]);
    expect([
      flag(argv, "--sglang-tool-call-parser"),
      flag(argv, "--sglang-reasoning-parser"),
      flag(argv, "--sglang-context-length"),
    ]).toEqual([["qwen25"], ["qwen3"], ["32768"]]);
    expect(flag(buildSlimeCommand(launch()).argv, "--rotary-base")).toEqual(["1000000"]);
  });

  it("TP follows the actor: 2 actor GPUs give TP 2, one gives TP 1 without SP", () => {
    const two = buildSlimeCommand(launch({}, { actorGpus: 2, rolloutGpus: 2, prmGpus: 2 })).argv;
    expect(flag(two, "--tensor-model-parallel-size")).toEqual(["2"]);
    const one = buildSlimeCommand(launch({}, { actorGpus: 1, rolloutGpus: 2, prmGpus: 2 })).argv;
    expect([flag(one, "--tensor-model-parallel-size"), flag(one, "--sequence-parallel")]).toEqual([["1"], undefined]);
  });

  it("extra args are validated after they are appended: a TP or engine size the plan refuses, a LoRA flag on Megatron", () => {
    const extra = (extraArgs: string[]) => launch({ slime: { hfCheckpoint: "/models/Qwen3-4B", extraArgs } });
    expect(() => buildSlimeCommand(extra(["--tensor-model-parallel-size", "3"]))).toThrowError(GpuSplitError);
    expect(() => buildSlimeCommand(extra(["--rollout-num-gpus-per-engine", "3"]))).toThrowError(/multiple|KV heads/);
    expect(() => buildSlimeCommand(extra(["--use-lora"]))).toThrowError(/--use-lora needs --train-backend fsdp/);
    // An override the rules accept wins (argparse keeps the last occurrence).
    expect(
      flag(
        buildSlimeCommand(extra(["--tensor-model-parallel-size", "2"])).argv.slice(-2),
        "--tensor-model-parallel-size",
      ),
    ).toEqual(["2"]);
  });

  it("an unknown checkpoint needs SLIME_MODEL; custom requires the architecture args", () => {
    expect(() => buildSlimeCommand(launch({ slime: { hfCheckpoint: "/models/llama" } }))).toThrowError(
      /no model preset/,
    );
    expect(() => buildSlimeCommand(launch({ slime: { hfCheckpoint: "/models/llama", model: "custom" } }))).toThrowError(
      /architecture arguments/,
    );
  });

  it("upstream slime: grpo with an external judge only; PRM GPUs, OPD and LoRA are refused with the reason", () => {
    const up = (config: Partial<RunLaunchConfigInput>, gpu: GpuSplitInput = { prmGpus: 0 }) =>
      launch(
        { ...config, slime: { hfCheckpoint: "/models/Qwen3-4B", profile: "upstream-slime", ...config.slime } },
        gpu,
      );
    const { argv } = buildSlimeCommand(up({ method: "grpo" }));
    expect(flag(argv, "--megatron-to-hf-mode")).toBeUndefined();
    expect(() => buildSlimeCommand(up({ method: "grpo" }, {}))).toThrowError(/silently ignore --prm-enable/);
    expect(() => buildSlimeCommand(up({ method: "opd" }))).toThrowError(/on_policy_distillation/);
    expect(() => buildSlimeCommand(up({ method: "grpo", lora: { enabled: true } }))).toThrowError(
      /--train-backend fsdp/,
    );
    const q35 = buildSlimeCommand(
      launch(
        { method: "grpo", slime: { hfCheckpoint: "/models/Qwen3.5-4B", profile: "upstream-slime" } },
        { prmGpus: 0 },
      ),
    ).argv;
    expect([
      flag(q35, "--rotary-base"),
      flag(q35, "--sglang-tool-call-parser"),
      flag(q35, "--tensor-model-parallel-size"),
    ]).toEqual([["10000000"], ["qwen3_coder"], ["4"]]);
  });

  it("Qwen3.5 on the fork (PR #43): every method it runs, from a torch_dist --ref-load in raw mode, never bridge", () => {
    const q35 = { hfCheckpoint: "/models/Qwen3.5-4B", refLoad: "/models/qwen35-4b_torch_dist" };
    for (const method of ["grpo", "opd", "combine"] as const) {
      const argv = buildSlimeCommand(launch({ method, slime: q35 })).argv;
      expect(flag(argv, "--spec")).toEqual(["slime_plugins.models.qwen3_5", "get_qwen3_5_spec"]);
      expect(flag(argv, "--ref-load")).toEqual(["/models/qwen35-4b_torch_dist"]);
      expect(flag(argv, "--megatron-to-hf-mode")).toBeUndefined();
      expect([flag(argv, "--rotary-base"), flag(argv, "--sglang-tool-call-parser")]).toEqual([
        ["10000000"],
        ["qwen3_coder"],
      ]);
      expect(flag(argv, "--prm-enable")).toEqual([]);
    }
    // The HF directory alone cannot load (no bridge for its hybrid layout): refused with what to pass instead.
    expect(() => buildSlimeCommand(launch({ slime: { hfCheckpoint: "/models/Qwen3.5-4B" } }))).toThrowError(
      /Qwen3.5-4B on the fork loads only a torch_dist conversion/,
    );
    expect(() =>
      buildSlimeCommand(launch({ slime: { ...q35, extraArgs: ["--megatron-to-hf-mode", "bridge"] } })),
    ).toThrowError(/must not load through --megatron-to-hf-mode bridge/);
  });
});
