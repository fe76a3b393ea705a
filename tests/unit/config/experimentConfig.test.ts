import { describe, expect, it } from "vitest";
import {
  BACKEND_HYPER_DEFAULTS,
  ExperimentConfigSchema,
  hyperDefaultsFor,
} from "../../../server/config/experimentConfig";
import { diffConfigs } from "../../../server/experiments/diff";

const issuesOf = (input: unknown) => {
  const r = ExperimentConfigSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
};

describe("experiment config", () => {
  it("fills OpenClaw-RL's defaults for GPU trainers", () => {
    const c = ExperimentConfigSchema.parse({
      policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30001", model: "qwen" },
      trainer: { backend: "local-process" },
    });
    expect(c.hyper).toMatchObject({
      lr: 1e-5,
      epsClip: 0.2,
      epsClipHigh: 0.28,
      klCoef: 0,
      batchSize: 16,
      wOpd: 1,
      wRl: 1,
      opdEstimator: "sampled",
      teacherSource: "base",
      advClamp: 0,
      dualClip: 0,
    });
    expect(c.judge).toMatchObject({ votes: 3, temperature: 0.6, includeRequest: false, hintSelection: "longest" });
    expect(c.lora).toMatchObject({ enabled: false, rank: 16, alpha: 32 });
  });

  it("gives the embedded trainer its own measured defaults, under whatever the config sets", () => {
    const c = ExperimentConfigSchema.parse({});
    expect(c.policy.kind).toBe("embedded");
    expect(c.trainer.backend).toBe("embedded");
    expect(c.hyper).toMatchObject({ ...BACKEND_HYPER_DEFAULTS.embedded, epsClip: 0.2, wRl: 1 });
    expect(c.hyper.lr).not.toBe(1e-5);
    expect(ExperimentConfigSchema.parse({ hyper: { lr: 3e-4 } }).hyper).toMatchObject({
      lr: 3e-4,
      batchSize: BACKEND_HYPER_DEFAULTS.embedded.batchSize,
    });
  });

  it("adds GRPO's own embedded defaults (the KL anchor, two epochs, batches of 16) under what the config sets, and nothing elsewhere", () => {
    expect(ExperimentConfigSchema.parse({ method: "grpo" }).hyper).toMatchObject({
      baseKlCoef: 0.3,
      ppoEpochs: 2,
      batchSize: 16,
    });
    expect(ExperimentConfigSchema.parse({ method: "grpo", hyper: { batchSize: 8 } }).hyper.batchSize).toBe(8);
    expect(ExperimentConfigSchema.parse({ method: "grpo", hyper: { baseKlCoef: 0 } }).hyper).toMatchObject({
      baseKlCoef: 0,
      ppoEpochs: 2,
    });
    for (const method of ["combine", "opd"])
      expect(ExperimentConfigSchema.parse({ method }).hyper).toMatchObject({
        baseKlCoef: 0,
        ppoEpochs: 1,
        batchSize: 8,
      });
    expect(hyperDefaultsFor("embedded", "grpo")).toMatchObject({
      ...BACKEND_HYPER_DEFAULTS.embedded,
      baseKlCoef: 0.3,
      batchSize: 16,
    });
    expect(hyperDefaultsFor("ray-slime", "grpo")).toEqual({});
  });

  it("keeps the full estimator and the current-policy teacher to the embedded trainer", () => {
    const gpu = {
      method: "opd",
      policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30001", model: "qwen" },
      trainer: { backend: "local-process" },
    };
    expect(issuesOf({ ...gpu, hyper: { opdEstimator: "full" } })).toContainEqual({
      path: "hyper.opdEstimator",
      message: expect.stringContaining("embedded and hf-local trainers only"),
    });
    expect(issuesOf({ ...gpu, hyper: { teacherSource: "current" } })).toContainEqual({
      path: "hyper.teacherSource",
      message: expect.stringContaining("embedded trainer only"),
    });
    // top-K on slime: method opd's estimator (upstream's top-K OPD) or combine's (upstream's hybrid GRPO + top-K);
    // the launch preview checks the split. The difference clip is its own knob, upstream's launcher's 1.0 by default.
    expect(issuesOf({ ...gpu, hyper: { opdEstimator: "topk", topK: 20, topkDiffClip: 2 } })).toEqual([]);
    expect(issuesOf({ ...gpu, method: "combine", hyper: { opdEstimator: "topk", topK: 20 } })).toEqual([]);
    expect(ExperimentConfigSchema.parse(gpu).hyper.topkDiffClip).toBe(1);
    // Train-time hint selection needs one teacher pass per candidate: on slime, the hybrid only.
    const optimal = { judge: { hintSelection: "sequence_optimal" }, hyper: { opdEstimator: "topk" } };
    expect(issuesOf({ ...gpu, method: "combine", ...optimal })).toEqual([]);
    expect(issuesOf({ ...gpu, ...optimal })).toEqual([
      {
        path: "judge.hintSelection",
        message: expect.stringContaining("upstream's hybrid (method combine with the topk estimator"),
      },
    ]);
    expect(issuesOf({ ...gpu, method: "combine", hyper: { opdEstimator: "topk", dualClip: 3 } })).toEqual([
      { path: "hyper.dualClip", message: expect.stringContaining("slime's top-K loss has no dual-clip") },
    ]);
    // Off slime the clip has no meaning.
    expect(issuesOf({ hyper: { topkDiffClip: 2 } })).toContainEqual({
      path: "hyper.topkDiffClip",
      message: expect.stringContaining("slime's top-K loss's"),
    });
    expect(issuesOf({ ...gpu, hyper: { advClamp: 1 } })).toContainEqual({
      path: "hyper.advClamp",
      message: expect.stringContaining("no advantage clamp"),
    });
    expect(issuesOf({ hyper: { dualClip: 1 } })).toContainEqual({
      path: "hyper.dualClip",
      message: "dual-clip must be 0 (off) or above 1",
    });
  });

  it("lets hf-local distil with every estimator (its frozen base is in-process) and serve the policy itself", () => {
    const hf = {
      method: "combine",
      policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30001/v1", model: "tiny" },
      trainer: { backend: "hf-local" },
    };
    expect(issuesOf({ ...hf, hyper: { opdEstimator: "full" } })).toEqual([]);
    expect(issuesOf({ ...hf, hyper: { opdEstimator: "topk", advClamp: 2 } })).toEqual([]);
    expect(issuesOf({ ...hf, hyper: { teacherSource: "current" } })).toContainEqual({
      path: "hyper.teacherSource",
      message: expect.stringContaining("embedded trainer only"),
    });
    // conversation hints are the embedded trainer's: other trainers' teachers see the turn's hint alone
    expect(issuesOf({ ...hf, hyper: { conversationHints: true } })).toContainEqual({
      path: "hyper.conversationHints",
      message: expect.stringContaining("embedded trainer only"),
    });
    expect(issuesOf({ ...hf, hyper: { userStyleHints: true } })).toContainEqual({
      path: "hyper.userStyleHints",
      message: expect.stringContaining("embedded trainer only"),
    });
    expect(issuesOf({ ...hf, hyper: { hindsightSampleTemperature: 0.7 } })).toContainEqual({
      path: "hyper.hindsightSampleTemperature",
      message: expect.stringContaining("embedded trainer only"),
    });
    expect(issuesOf({ ...hf, policy: { kind: "embedded" } })).toContainEqual({
      path: "policy.kind",
      message: expect.stringContaining("hf-local serves the policy itself"),
    });
    // Slime keeps its refusals (the full estimator needs the teacher's whole distribution in-process).
    expect(
      issuesOf({ ...hf, trainer: { backend: "local-process" }, hyper: { opdEstimator: "full" } }).map((i) => i.path),
    ).toContain("hyper.opdEstimator");
  });

  it("lets hf-local choose LoRA or full fine-tuning, and only hf-local", () => {
    const hf = {
      method: "grpo",
      policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30001/v1", model: "tiny" },
      trainer: { backend: "hf-local" },
    };
    for (const finetune of ["lora", "full", "auto"])
      expect(issuesOf({ ...hf, trainer: { backend: "hf-local", finetune } })).toEqual([]);
    expect(issuesOf({ ...hf, trainer: { backend: "hf-local", finetune: "qlora" } }).map((i) => i.path)).toEqual([
      "trainer.finetune",
    ]);
    expect(issuesOf({ ...hf, trainer: { backend: "local-process", finetune: "full" } })).toContainEqual({
      path: "trainer.finetune",
      message: expect.stringContaining("hf-local's"),
    });
    // Full fine-tuning saves whole models: nothing for an engine to hot-load as a LoRA adapter.
    const hotLoaded = { ...hf.policy, loraAdapters: "sglang" };
    expect(issuesOf({ ...hf, policy: hotLoaded, trainer: { backend: "hf-local", finetune: "full" } })).toEqual([
      { path: "policy.loraAdapters", message: expect.stringContaining("full fine-tuning saves whole models") },
    ]);
    expect(issuesOf({ ...hf, policy: hotLoaded, trainer: { backend: "hf-local", finetune: "lora" } })).toEqual([]);
  });

  it("names the field and what to change", () => {
    expect(issuesOf({ hyper: { epsClip: 0.3, epsClipHigh: 0.2 } })).toContainEqual({
      path: "hyper.epsClipHigh",
      message: expect.stringContaining("must be ≥ eps-clip"),
    });
    expect(issuesOf({ hyper: { lr: -1 } })).toContainEqual({
      path: "hyper.lr",
      message: "learning rate must be ≥ 0 (0 = a control run that never moves)",
    });
    expect(issuesOf({ policy: { kind: "openai", baseUrl: "ftp://x", model: "m" } })[0]?.path).toBe("policy.baseUrl");
    expect(issuesOf({ method: "ppo" })[0]?.path).toBe("method");
    expect(issuesOf({ judge: { votes: 0 } })).toContainEqual({ path: "judge.votes", message: "at least one vote" });
  });

  it("validates the GPU split for GPU trainers and explains errors", () => {
    const base = {
      policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30001", model: "qwen" },
      trainer: { backend: "local-process" },
    };
    expect(issuesOf(base)).toEqual([]);
    const bad = issuesOf({
      ...base,
      trainer: {
        backend: "local-process",
        gpu: { nodes: 1, gpusPerNode: 4, actorGpus: 4, rolloutGpus: 2, prmGpus: 2 },
      },
    });
    expect(bad.length).toBeGreaterThan(0);
    expect(bad.every((i) => i.path.startsWith("trainer.gpu"))).toBe(true);
    expect(issuesOf({ ...base, trainer: { backend: "ray-slime" } })).toContainEqual({
      path: "trainer.rayAddress",
      message: expect.stringContaining("Ray dashboard address"),
    });
  });

  it("allows upstream's train-time hint selection where the trainer sees both top-K sets, and says why not elsewhere", () => {
    const gpu = { policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30001", model: "qwen" } };
    for (const mode of ["token_optimal", "sequence_optimal"] as const) {
      expect(issuesOf({ judge: { hintSelection: mode }, hyper: { opdEstimator: "topk" } })).toEqual([]);
      expect(issuesOf({ judge: { hintSelection: mode }, hyper: { opdEstimator: "full" } })).toEqual([]);
      // the embedded trainer's default estimator is full
      expect(issuesOf({ judge: { hintSelection: mode } })).toEqual([]);
      expect(issuesOf({ judge: { hintSelection: mode }, hyper: { opdEstimator: "sampled" } })).toContainEqual({
        path: "judge.hintSelection",
        message: expect.stringContaining("the sampled estimator never sees"),
      });
      expect(
        issuesOf({ ...gpu, judge: { hintSelection: mode }, trainer: { backend: "local-process" } }),
      ).toContainEqual({
        path: "judge.hintSelection",
        message: expect.stringContaining("on slime that is upstream's hybrid"),
      });
      // ... which is method combine with the topk estimator (one in-job teacher pass per hint candidate).
      expect(
        issuesOf({
          ...gpu,
          judge: { hintSelection: mode },
          trainer: { backend: "local-process" },
          hyper: { opdEstimator: "topk" },
        }),
      ).toEqual([]);
      expect(
        issuesOf({ ...gpu, judge: { hintSelection: mode }, trainer: { backend: "tinker" } }).map((i) => i.path),
      ).toContain("judge.hintSelection");
      // GRPO trains no hint, so the choice is moot there
      expect(
        issuesOf({ ...gpu, method: "grpo", judge: { hintSelection: mode }, trainer: { backend: "local-process" } }),
      ).toEqual([]);
    }
    expect(issuesOf({ ...gpu, judge: { hintSelection: "shortest" }, trainer: { backend: "local-process" } })).toEqual(
      [],
    );
  });

  it("diffs configs leaf by leaf", () => {
    const a = ExperimentConfigSchema.parse({});
    const b = ExperimentConfigSchema.parse({ method: "grpo", hyper: { lr: 2e-5 } });
    // GRPO's embedded defaults add the KL anchor, a second epoch and batches of 16; Combine's style prompts go
    // (METHOD_HYPER_DEFAULTS).
    expect(diffConfigs(a, b)).toEqual([
      { path: "hyper.baseKlCoef", before: 0, after: 0.3 },
      { path: "hyper.batchSize", before: 8, after: 16 },
      { path: "hyper.lr", before: BACKEND_HYPER_DEFAULTS.embedded.lr, after: 2e-5 },
      { path: "hyper.ppoEpochs", before: 1, after: 2 },
      { path: "hyper.stylePrompts", before: 16, after: 0 },
      { path: "method", before: "combine", after: "grpo" },
    ]);
    expect(diffConfigs(a, a)).toEqual([]);
  });
});
