// Argument contract: every flag the generated slime command carries exists in the declared profile's parser,
// with a value of the right kind and type. The fixtures are slime's argparse definitions extracted at pinned
// commits (tests/fixtures/slime/*.json; how: integrations/contracts/README.md). SGLang's own server flags
// (`--sglang-*`) are not expanded there (they come from the installed sglang): the ones we generate are listed
// below from SGLang's ServerArgs.add_cli_args (python/sglang/srt/server_args.py) and re-checked on the cluster by
// the preflight, which parses with the installed slime.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RunLaunchSchema, TrainingMethodSchema } from "../../../../server/runs/backends/backend";
import { buildSlimeCommand, hintArgs, SlimeCommandError } from "../../../../server/runs/backends/slime/args";
import {
  SLIME_PROFILE_IDS,
  SLIME_PROFILES,
  type SlimeProfileId,
} from "../../../../server/runs/backends/slime/profiles";
import { buildTrackJob, type TrackJobInput } from "../../../../server/runs/backends/slime/tracks";
import { planGpuSplit } from "../../../../server/gpu/plan";
import { slimeCommandFor } from "../../../../server/runs/backends/slime/trackLaunch";

interface FixtureArg {
  option_strings: string[];
  kind: "flag" | "value" | "list" | "optional-value";
  type: string | null;
  nargs: string | number | null;
  choices: unknown;
}
interface Fixture {
  header: { profile: string; sources: { repo: string; commit: string }[] };
  parsers: Record<string, { args: FixtureArg[] }>;
}

const fixture = (id: SlimeProfileId): Fixture =>
  JSON.parse(readFileSync(path.join(__dirname, "../../../fixtures/slime", `${id}.json`), "utf8")) as Fixture;
const FIXTURES = Object.fromEntries(SLIME_PROFILE_IDS.map((id) => [id, fixture(id)])) as Record<
  SlimeProfileId,
  Fixture
>;

/** SGLang server flags we generate (external to the fixtures), with their argparse types. */
const SGLANG_FLAGS: Record<string, string> = {
  "--sglang-tool-call-parser": "str",
  "--sglang-reasoning-parser": "str",
  "--sglang-mem-fraction-static": "float",
  "--sglang-context-length": "int",
};

/** The parser(s) slime uses for this argument list (integrations/contracts/README.md, "Parsers"). */
function parserFor(profile: SlimeProfileId, args: string[]): Map<string, FixtureArg> {
  const f = FIXTURES[profile];
  const names =
    profile === "openclaw-rl-fork"
      ? [args[args.indexOf("--train-backend") + 1] === "fsdp" && args.includes("--train-backend") ? "fsdp" : "megatron"]
      : Object.keys(f.parsers);
  const map = new Map<string, FixtureArg>();
  for (const n of names) for (const a of f.parsers[n].args) for (const o of a.option_strings) map.set(o, a);
  return map;
}

function typeOk(type: string | null, value: string): boolean {
  if (type === "int") return /^-?\d+$/.test(value);
  if (type === "float") return value.trim() !== "" && Number.isFinite(Number(value));
  return true;
}

/** Every problem with `args` against the profile's contract (empty = conforms). */
function contractProblems(profile: SlimeProfileId, args: string[]): string[] {
  const parser = parserFor(profile, args);
  const problems: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i];
    if (!name.startsWith("--")) continue;
    const values: string[] = [];
    for (let j = i + 1; j < args.length && !args[j].startsWith("--"); j++) values.push(args[j]);
    if (name in SGLANG_FLAGS) {
      if (values.length !== 1 || !typeOk(SGLANG_FLAGS[name], values[0]))
        problems.push(`${name} ${values.join(" ")}: expected one ${SGLANG_FLAGS[name]}`);
      continue;
    }
    const spec = parser.get(name);
    if (!spec) {
      problems.push(`${name} is not a flag of ${profile}`);
      continue;
    }
    if (spec.kind === "flag" && values.length) problems.push(`${name} takes no value (got ${values.join(" ")})`);
    if (spec.kind === "value" && values.length !== 1) problems.push(`${name} takes one value (got ${values.length})`);
    if (spec.kind === "list" && (spec.nargs === "+" ? values.length < 1 : false))
      problems.push(`${name} needs at least one value`);
    if (spec.kind === "list" && typeof spec.nargs === "number" && values.length !== spec.nargs)
      problems.push(`${name} takes ${spec.nargs} values`);
    for (const v of values) {
      if (!typeOk(spec.type, v)) problems.push(`${name} ${v}: not a ${spec.type}`);
      if (Array.isArray(spec.choices) && !spec.choices.map(String).includes(v))
        problems.push(`${name} ${v}: not one of ${spec.choices.join(", ")}`);
    }
  }
  return problems;
}

const CHECKPOINTS: { hfCheckpoint: string; refLoad?: string; prmTeacherLoad?: string }[] = [
  { hfCheckpoint: "/models/Qwen3-4B" },
  { hfCheckpoint: "/models/Qwen3-4B-Thinking-2507" },
  { hfCheckpoint: "/models/Qwen3-8B" },
  { hfCheckpoint: "/models/Qwen3.5-4B" },
  // Qwen3.5 on the fork loads a torch_dist conversion (raw spec, no bridge).
  { hfCheckpoint: "/models/Qwen3.5-4B", refLoad: "/models/qwen35-4b_torch_dist" },
  // …and so does its in-job teacher (the 4-way split: combine, topk).
  {
    hfCheckpoint: "/models/Qwen3.5-4B",
    refLoad: "/models/qwen35-4b_torch_dist",
    prmTeacherLoad: "/models/qwen35-4b_torch_dist",
  },
];
const SPLITS = [
  {},
  { prmGpus: 0 },
  { nodes: 2, actorGpus: 8, rolloutGpus: 4, prmGpus: 4 },
  { gpusPerNode: 4, actorGpus: 2, rolloutGpus: 1, prmGpus: 1, rolloutGpusPerEngine: 1, prmGpusPerEngine: 1 },
  // The 4-way split with the in-job Megatron PRM teacher (PR #85), on 8 and on 16 GPUs.
  { prmGpus: 1, prmGpusPerEngine: 1, prmTeacherGpus: 1 },
  { nodes: 2, actorGpus: 8, rolloutGpus: 4, prmGpus: 2, prmTeacherGpus: 2 },
];

describe("generated slime commands against the extracted argparse contracts", () => {
  it("fixtures record where they came from", () => {
    expect(FIXTURES["openclaw-rl-fork"].header.sources[0]).toMatchObject({
      repo: "Gen-Verse/OpenClaw-RL",
      commit: "f48ac358adf9873b5cb2210f1cb234a52ed8a8a3",
    });
    expect(FIXTURES["upstream-slime"].header.sources[0]).toMatchObject({
      repo: "THUDM/slime",
      commit: "624b824a898ab0ec1fcb4d373004c7f3852bf515",
    });
  });

  const cases = SLIME_PROFILE_IDS.flatMap((profile) =>
    TrainingMethodSchema.options.flatMap((method) => [false, true].map((lora) => ({ profile, method, lora }))),
  );
  it.each(cases)(
    "$profile × $method × LoRA $lora: every flag exists with the right type, or the command is refused with a reason",
    ({ profile, method, lora }) => {
      let built = 0;
      let builtQwen35 = 0;
      for (const checkpoint of CHECKPOINTS) {
        for (const gpu of SPLITS) {
          const launch = RunLaunchSchema.parse({
            runId: "r",
            experimentSlug: "e",
            config: {
              method,
              lora: { enabled: lora },
              gpu,
              controlPlaneUrl: "http://cp:3000",
              apiKey: "k",
              slime: { ...checkpoint, profile, saveDir: "/ckpt" },
              // every optional flag the experiment can turn on: dual-clip, advantage whitening
              hyperparameters: { dualClip: 3, normalizeAdvantages: true },
            },
          });
          let argv: string[];
          try {
            argv = buildSlimeCommand(launch).argv;
          } catch (err) {
            // A refusal must say why (never a crash of the builder).
            expect((err as Error).message.length).toBeGreaterThan(20);
            expect(err instanceof SlimeCommandError || (err as Error).name === "GpuSplitError").toBe(true);
            continue;
          }
          built++;
          if (checkpoint.hfCheckpoint.includes("Qwen3.5")) builtQwen35++;
          expect(
            contractProblems(profile, argv.slice(2)),
            `${JSON.stringify(checkpoint)} ${JSON.stringify(gpu)}`,
          ).toEqual([]);
        }
      }
      // What each profile supports is built somewhere in the matrix (grpo everywhere; the fork also opd, combine
      // and topk without LoRA, topk on the 4-way splits only).
      const supported =
        method === "grpo" ? !(profile === "upstream-slime" && lora) : profile === "openclaw-rl-fork" && !lora;
      expect(built > 0).toBe(supported);
      // Qwen3.5 included (the fork has it since PR #43).
      expect(builtQwen35 > 0).toBe(supported);
    },
  );

  it("topk builds only on the 4-way split, and its flags and the teacher's parse on the fork", () => {
    const build = (gpu: (typeof SPLITS)[number]) =>
      buildSlimeCommand(
        RunLaunchSchema.parse({
          runId: "r",
          experimentSlug: "e",
          config: {
            method: "topk",
            gpu,
            controlPlaneUrl: "http://cp:3000",
            apiKey: "k",
            slime: { hfCheckpoint: "/models/Qwen3-4B", saveDir: "/ckpt" },
          },
        }),
      );
    expect(() => build({})).toThrowError(/needs the in-job Megatron PRM teacher/);
    // The knobs it exports are upstream's (openclaw_topk_select_loss.py, extracted into sample-contract.json), and
    // the loss path names a function our module defines.
    const contract = JSON.parse(
      readFileSync(path.join(__dirname, "../../../fixtures/slime/sample-contract.json"), "utf8"),
    ) as { commits: { topk: { select_loss: { env: { name: string }[] } } | null }[] };
    const upstreamKnobs = contract.commits.at(-1)!.topk!.select_loss.env.map((e) => e.name);
    const cmd4 = build(SPLITS.find((s) => "prmTeacherGpus" in s)!);
    const knobs = Object.keys(cmd4.env).filter((k) => k.startsWith("OPENCLAW_TOPK_"));
    expect(knobs.length).toBe(3);
    expect(knobs.filter((k) => !upstreamKnobs.includes(k))).toEqual([]);
    const lossPath = cmd4.argv[cmd4.argv.indexOf("--custom-loss-function-path") + 1];
    const [mod, fn] = [lossPath.slice(0, lossPath.lastIndexOf(".")), lossPath.slice(lossPath.lastIndexOf(".") + 1)];
    const source = readFileSync(path.join(__dirname, "../../../..", `${mod.replaceAll(".", "/")}.py`), "utf8");
    expect(source).toMatch(new RegExp(`^def ${fn}\\(args\\b`, "m"));
    for (const knob of knobs) expect(source).toContain(`"${knob}"`);
    for (const gpu of SPLITS.filter((s) => "prmTeacherGpus" in s)) {
      const cmd = build(gpu);
      expect(contractProblems("openclaw-rl-fork", cmd.argv.slice(2))).toEqual([]);
      for (const f of [
        "--distill-topk",
        "--distill-subset-mode",
        "--prm-teacher-load",
        "--disable-rewards-normalization",
      ])
        expect(cmd.argv).toContain(f);
    }
  });

  it("the hybrid (combine with the topk estimator) builds on the fork's 4-way split for every preset, without LoRA, and its flags parse", () => {
    const contract = JSON.parse(
      readFileSync(path.join(__dirname, "../../../fixtures/slime/sample-contract.json"), "utf8"),
    ) as {
      commits: {
        topk: { select_loss: { env: { name: string }[] } } | null;
        hybrid: { rollout: { env: { name: string }[] } } | null;
      }[];
    };
    const pinned = contract.commits.at(-1)!;
    // Every knob it exports is one upstream's select loss or select rollout reads.
    const upstreamKnobs = [...pinned.topk!.select_loss.env, ...pinned.hybrid!.rollout.env].map((e) => e.name);
    let built = 0;
    for (const profile of SLIME_PROFILE_IDS)
      for (const lora of [false, true])
        for (const checkpoint of CHECKPOINTS)
          for (const gpu of SPLITS) {
            const launch = RunLaunchSchema.parse({
              runId: "r",
              experimentSlug: "e",
              config: {
                method: "combine",
                lora: { enabled: lora },
                gpu,
                controlPlaneUrl: "http://cp:3000",
                apiKey: "k",
                slime: { ...checkpoint, profile, saveDir: "/ckpt" },
                hyperparameters: { opdEstimator: "topk", distillTopK: 4 },
                hints: { selection: "sequence_optimal", m: 3 },
              },
            });
            let cmd: ReturnType<typeof buildSlimeCommand>;
            try {
              cmd = buildSlimeCommand(launch);
            } catch (err) {
              expect(err instanceof SlimeCommandError || (err as Error).name === "GpuSplitError").toBe(true);
              continue;
            }
            built++;
            expect([profile, lora, "prmTeacherGpus" in gpu]).toEqual(["openclaw-rl-fork", false, true]);
            expect(contractProblems(profile, cmd.argv.slice(2))).toEqual([]);
            const knobs = Object.keys(cmd.env).filter((k) => k.startsWith("OPENCLAW_TOPK_"));
            expect(knobs.sort()).toEqual(
              [
                "OPENCLAW_TOPK_ADV_DIFF_CLIP",
                "OPENCLAW_TOPK_MAX_CAND",
                "OPENCLAW_TOPK_W_OPD",
                "OPENCLAW_TOPK_W_RL",
              ].sort(),
            );
            expect(knobs.filter((k) => !upstreamKnobs.includes(k))).toEqual([]);
            for (const f of [
              "--distill-topk",
              "--distill-subset-mode",
              "--hint-m",
              "--hint-selection",
              "--prm-teacher-load",
            ])
              expect(cmd.argv).toContain(f);
          }
    expect(built).toBeGreaterThan(0);
  });

  it("the 4-way split (combine, fork): --prm-teacher-load/--prm-teacher-num-gpus parse, and other methods are refused", () => {
    const build = (
      method: string,
      profile: SlimeProfileId = "openclaw-rl-fork",
      slime: Record<string, string> = { hfCheckpoint: "/models/Qwen3-4B-Thinking-2507", prmModelPath: "/models/prm" },
    ) =>
      buildSlimeCommand(
        RunLaunchSchema.parse({
          runId: "r",
          experimentSlug: "e",
          config: {
            method,
            gpu: { prmGpus: 1, prmGpusPerEngine: 1, prmTeacherGpus: 1 },
            controlPlaneUrl: "http://cp:3000",
            apiKey: "k",
            slime: { ...slime, profile },
          },
        }),
      );
    const combine = build("combine");
    const at = (flag: string) => combine.argv[combine.argv.indexOf(flag) + 1];
    expect([at("--prm-teacher-load"), at("--prm-teacher-num-gpus")]).toEqual(["/models/prm", "1"]);
    expect(combine.env.OPENCLAW_COMBINE_OPD_TEACHER_SOURCE).toBe("megatron");
    expect(contractProblems("openclaw-rl-fork", combine.argv.slice(2))).toEqual([]);
    // The previous pin had no such flags: the fixture-based check is what would have caught it.
    expect(combine.plan.summary.text).toContain("PRM teacher 1");
    expect(() => build("opd")).toThrowError(/serves methods combine and topk only/);
    expect(() => build("grpo")).toThrowError(/serves methods combine and topk only/);
    expect(() => build("combine", "upstream-slime")).toThrowError(/fork-only|PRM/);

    // A torch_dist teacher in bridge mode also names the HF directory to build it from.
    const dist = build("combine", "openclaw-rl-fork", {
      hfCheckpoint: "/models/Qwen3-4B-Thinking-2507",
      prmTeacherLoad: "/ckpt/prm_torch_dist",
    });
    const d = (flag: string) => dist.argv[dist.argv.indexOf(flag) + 1];
    expect([d("--prm-teacher-load"), d("--prm-teacher-hf-checkpoint")]).toEqual([
      "/ckpt/prm_torch_dist",
      "/models/Qwen3-4B-Thinking-2507",
    ]);
    expect(contractProblems("openclaw-rl-fork", dist.argv.slice(2))).toEqual([]);
    // Raw mode (Qwen3.5 from torch_dist): the teacher must be a torch_dist directory too.
    const qwen35 = { hfCheckpoint: "/models/Qwen3.5-4B", refLoad: "/models/qwen35-4b_torch_dist" };
    expect(() => build("combine", "openclaw-rl-fork", qwen35)).toThrowError(/SLIME_PRM_TEACHER_LOAD/);
    const raw = build("combine", "openclaw-rl-fork", { ...qwen35, prmTeacherLoad: "/models/qwen35-4b_torch_dist" });
    expect(raw.argv).not.toContain("--prm-teacher-hf-checkpoint");
  });

  it("carries the judge's hint policy as the fork's --hint-m / --hint-selection, which its parser accepts", () => {
    const launch = (selection: string, profile: SlimeProfileId = "openclaw-rl-fork", method = "combine") =>
      RunLaunchSchema.parse({
        runId: "r",
        experimentSlug: "e",
        config: {
          method,
          hints: { selection, m: 4 },
          controlPlaneUrl: "http://cp:3000",
          apiKey: "k",
          slime: { hfCheckpoint: "/models/Qwen3-4B", saveDir: "/ckpt", profile },
        },
      });
    const argv = buildSlimeCommand(launch("shortest")).argv;
    expect(argv.slice(argv.indexOf("--hint-m"), argv.indexOf("--hint-m") + 4)).toEqual([
      "--hint-m",
      "4",
      "--hint-selection",
      "shortest",
    ]);
    expect(contractProblems("openclaw-rl-fork", argv.slice(2))).toEqual([]);
    // The fork has no "longest" (its default is shortest): the reference's longest passes the count only.
    const longest = buildSlimeCommand(launch("longest")).argv;
    expect(longest).toContain("--hint-m");
    expect(longest).not.toContain("--hint-selection");
    // Every fork choice parses (the train-time modes are refused by the experiment config on slime, not here).
    for (const selection of ["shortest", "token_optimal", "sequence_optimal"]) {
      const l = launch(selection);
      expect(hintArgs(l, SLIME_PROFILES["openclaw-rl-fork"])).toContain(selection);
      expect(contractProblems("openclaw-rl-fork", hintArgs(l, SLIME_PROFILES["openclaw-rl-fork"]))).toEqual([]);
    }
    // GRPO trains no hint; upstream slime has no such flags.
    expect(buildSlimeCommand(launch("shortest", "openclaw-rl-fork", "grpo")).argv).not.toContain("--hint-m");
    expect(hintArgs(launch("shortest", "upstream-slime", "grpo"), SLIME_PROFILES["upstream-slime"])).toEqual([]);
    expect(hintArgs(launch("shortest", "upstream-slime"), SLIME_PROFILES["upstream-slime"])).toEqual([]);
  });

  it("the check itself catches a wrong flag, a wrong type and a wrong choice", () => {
    expect(contractProblems("openclaw-rl-fork", ["--lora-rank", "16"])).toEqual([
      "--lora-rank is not a flag of openclaw-rl-fork",
    ]);
    expect(contractProblems("openclaw-rl-fork", ["--num-layers", "36.5"])).toEqual(["--num-layers 36.5: not a int"]);
    expect(contractProblems("upstream-slime", ["--train-backend", "fsdp"])).toEqual([
      "--train-backend fsdp: not one of megatron",
    ]);
    expect(contractProblems("upstream-slime", ["--prm-enable"])).toEqual([
      "--prm-enable is not a flag of upstream-slime",
    ]);
  });
});

describe("the agentic tracks' slime jobs (toolcall-rl ReTool, terminal-rl) against the fork's contract", () => {
  const base = {
    hfCheckpoint: "/models/qwen3-4b-retool-sft",
    refLoad: "/models/qwen3-4b_torch_dist",
    saveDir: "/ckpt",
  };
  const retool = { ...base, track: "retool" as const, promptData: "/data/dapo.jsonl", evalData: "/data/aime.jsonl" };
  const terminal = {
    ...base,
    track: "terminal" as const,
    hfCheckpoint: "/models/Qwen3-8B",
    promptData: "/data/tasks.jsonl",
    envServerUrl: "http://pool-router:18080",
  };
  const prm = { modelPath: "/models/Qwen3-4B" };
  const at = (argv: string[], flag: string) => argv[argv.indexOf(flag) + 1];

  it.each<[string, TrackJobInput]>([
    ["ReTool", retool],
    ["ReTool + PRM (2 actor, 4 rollout, 2 PRM GPUs)", { ...retool, prm }],
    ["terminal", terminal],
    ["terminal + PRM on a second node", { ...terminal, prm, gpu: { nodes: 2 } }],
    ["ReTool, 16 samples on 2 nodes", { ...retool, nSamplesPerPrompt: 16, gpu: { nodes: 2, actorGpus: 8 } }],
  ])("%s: every flag exists in the fork's parser with the right type", (_name, input) => {
    const job = buildTrackJob(input);
    expect(contractProblems("openclaw-rl-fork", job.argv)).toEqual([]);
  });

  it("groups n samples per prompt, and with a PRM uses step_wise with the PRM on GPUs of its own", () => {
    const plain = buildTrackJob(retool);
    expect(at(plain.argv, "--n-samples-per-prompt")).toBe("8");
    expect(at(plain.argv, "--advantage-estimator")).toBe("grpo");
    expect(plain.argv).not.toContain("--prm-enable");
    expect(plain.split).toEqual({ actor: 4, rollout: 4, prm: 0, total: 8 });

    const withPrm = buildTrackJob({ ...retool, prm });
    expect(at(withPrm.argv, "--advantage-estimator")).toBe("step_wise");
    expect(withPrm.argv).toContain("--prm-enable");
    expect([at(withPrm.argv, "--prm-num-gpus"), at(withPrm.argv, "--prm-model-path")]).toEqual([
      "2",
      "/models/Qwen3-4B",
    ]);
    // The script's split: actor 2 + rollout 4 + PRM 2 = the node's 8, none shared.
    expect(withPrm.split).toEqual({ actor: 2, rollout: 4, prm: 2, total: 8 });
    expect(at(withPrm.argv, "--actor-num-gpus-per-node")).toBe("2");
    expect(at(withPrm.argv, "--rollout-num-gpus")).toBe("4");
    expect([at(withPrm.argv, "--custom-generate-function-path"), at(withPrm.argv, "--custom-rm-path")]).toEqual([
      "generate_with_retool.generate",
      "generate_with_retool.reward_func",
    ]);
    expect(withPrm.env.PYTHONPATH.split(":")).toContain("toolcall-rl");

    const term = buildTrackJob({ ...terminal, prm, gpu: { nodes: 2 } });
    expect(at(term.argv, "--advantage-estimator")).toBe("step_wise");
    expect(term.argv).toContain("--dynamic_history");
    expect(term.split).toEqual({ actor: 4, rollout: 4, prm: 8, total: 16 });
    expect(at(term.argv, "--custom-generate-function-path")).toBe("generate.generate");
    expect(term.env).toMatchObject({ USE_REMOTE_ENV: "1", ENV_SERVER_URL: "http://pool-router:18080" });
  });

  it("refuses a split that does not fit, with the reason", () => {
    expect(() => buildTrackJob({ ...terminal, prm })).toThrowError(/exceed the 8 of 1 node/);
    expect(() => buildTrackJob({ ...retool, gpu: { rolloutGpus: 3 } })).toThrowError(/multiple of GPUs per engine/);
    expect(() => buildTrackJob({ ...retool, prm: { ...prm, gpus: 1 } })).toThrowError(/PRM GPUs/);
    const { envServerUrl: _unused, ...noPool } = terminal;
    expect(() => buildTrackJob(noPool)).toThrowError(/ENV_SERVER_URL/);
  });
});

describe("a track job driven by the console (what a run of an environment experiment launches)", () => {
  const base = { hfCheckpoint: "/models/Qwen3-8B", refLoad: "/models/Qwen3-8B_torch_dist", saveDir: "/ckpt" };
  const at = (argv: string[], flag: string) => argv[argv.indexOf(flag) + 1];
  const prm = { modelPath: "/models/Qwen3-4B" };

  it.each<[string, TrackJobInput]>([
    ["ReTool", { ...base, track: "retool", driver: "console" }],
    ["terminal + PRM on a second node", { ...base, track: "terminal", driver: "console", prm, gpu: { nodes: 2 } }],
  ])("%s: every flag exists in the fork's parser; our rollout function leases episodes", (_name, input) => {
    const job = buildTrackJob(input);
    expect(contractProblems("openclaw-rl-fork", job.argv)).toEqual([]);
    expect(at(job.argv, "--rollout-function-path")).toBe("integrations.slime.rollout.generate_rollout");
    expect(job.argv).toContain("--disable-rollout-global-dataset");
    for (const flag of ["--prompt-data", "--custom-generate-function-path", "--custom-rm-path", "--eval-prompt-data"])
      expect(job.argv).not.toContain(flag);
    expect(job.env).toEqual({ CUDA_DEVICE_MAX_CONNECTIONS: "1", OPENCLAW_LEASE_UNIT: "episodes" });
  });

  it("needs neither a dataset nor an env pool, and the planner places the PRM on GPUs of its own", () => {
    const job = buildTrackJob({ ...base, track: "terminal", driver: "console", prm, gpu: { nodes: 2 } });
    expect(at(job.argv, "--advantage-estimator")).toBe("step_wise");
    const plan = planGpuSplit(job.gpuSplit);
    if (!plan.ok) throw new Error(JSON.stringify(plan.errors));
    const roles = plan.nodes.map((n) => n.gpus.map((g) => g.role));
    expect(roles).toEqual([
      ["actor", "actor", "actor", "actor", "rollout", "rollout", "rollout", "rollout"],
      ["prm", "prm", "prm", "prm", "prm", "prm", "prm", "prm"],
    ]);
    expect(plan.summary.prm).toMatchObject({ gpus: 8, engines: 8, external: false });
    // As a run launches it (slime/trackLaunch.ts), from the experiment's split and the operator's slime settings.
    const run = slimeCommandFor(
      RunLaunchSchema.parse({
        runId: "r",
        experimentSlug: "e",
        config: {
          controlPlaneUrl: "http://console:3000",
          apiKey: "k",
          slime: { hfCheckpoint: "/models/Qwen3-4B", saveDir: "/ckpt" },
          gpu: { actorGpus: 2, rolloutGpus: 4, prmGpus: 2 },
          episodes: { track: "terminal", nSamplesPerPrompt: 8, groupsPerRollout: 16 },
        },
      }),
    );
    expect(contractProblems("openclaw-rl-fork", run.argv.slice(2))).toEqual([]);
    // The fork's own driver still reads its prompts from a dataset.
    expect(() => buildTrackJob({ ...base, track: "retool" })).toThrowError(/promptData is required/);
  });
});
