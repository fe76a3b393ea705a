// The experiment config's per-user personalization option: its defaults and the backends that refuse it.
import { describe, expect, it } from "vitest";
import { ExperimentConfigSchema, judgeExtractsHints } from "../../../server/config/experimentConfig";

describe("personalization", () => {
  it("defaults to one shared policy, with per-user adapter settings ready", () => {
    const cfg = ExperimentConfigSchema.parse({});
    expect(cfg.personalization).toBe("shared");
    expect(cfg.perUser).toMatchObject({
      rank: 8,
      alpha: 16,
      targets: "attention+mlp",
      minSamples: 16,
      advantages: "positive",
      hindsightSamples: 2,
      hindsightWeight: 3,
      hindsightMinLogprob: -0.15,
      gradClip: 0.4,
      rememberedHint: true,
      baseKlCoef: 0.03,
      baseKlScope: "samples",
      hindsightRelevance: false,
      hindsightTarget: "teacher",
      hindsightTemperature: 0.7,
      newUsers: "base",
    });
  });

  it("bounds the teacher's temperature to 0.1–2 (a 4xx at the field otherwise)", () => {
    for (const t of [0.1, 1, 2])
      expect(ExperimentConfigSchema.parse({ perUser: { hindsightTemperature: t } }).perUser.hindsightTemperature).toBe(
        t,
      );
    for (const t of [0, 0.05, 2.5, -1])
      expect(ExperimentConfigSchema.safeParse({ perUser: { hindsightTemperature: t } }).success).toBe(false);
  });

  it("takes an optional seed for the users' fresh adapters, a non-negative 31-bit integer", () => {
    expect(ExperimentConfigSchema.parse({}).perUser.seed).toBeUndefined();
    expect(ExperimentConfigSchema.parse({ perUser: { seed: 42 } }).perUser.seed).toBe(42);
    for (const seed of [-1, 1.5, 2 ** 31])
      expect(ExperimentConfigSchema.safeParse({ perUser: { seed } }).success).toBe(false);
  });

  it("accepts per-user on the embedded policy and trainer", () => {
    const cfg = ExperimentConfigSchema.parse({ personalization: "per-user", perUser: { rank: 2, lr: 0 } });
    expect(cfg.personalization).toBe("per-user");
    expect(cfg.perUser).toMatchObject({ rank: 2, lr: 0 });
  });

  it("refuses per-user on slime with the reason, and on an external policy", () => {
    const slime = ExperimentConfigSchema.safeParse({
      personalization: "per-user",
      trainer: { backend: "ray-slime", rayAddress: "http://head:8265" },
    });
    expect(slime.success).toBe(false);
    expect(slime.error!.issues.find((i) => i.path[0] === "personalization")?.message).toMatch(
      /slime trains one policy per job/,
    );
    const external = ExperimentConfigSchema.safeParse({
      personalization: "per-user",
      policy: { kind: "openai", baseUrl: "http://x.test/v1", model: "m" },
    });
    expect(external.success).toBe(false);
    expect(external.error!.issues.some((i) => i.path[0] === "personalization")).toBe(true);
  });

  it("takes SGLang/vLLM multi-LoRA with hf-local's PEFT folders, and says what is missing otherwise", () => {
    const engine = (loraAdapters: "sglang" | "vllm" | undefined, backend: string) =>
      ExperimentConfigSchema.safeParse({
        personalization: "per-user",
        policy: { kind: "sglang", baseUrl: "http://10.0.0.5:30000/v1", model: "m", loraAdapters, loraMaxLoaded: 4 },
        trainer: { backend },
      });
    expect(engine("sglang", "hf-local").success).toBe(true);
    expect(engine("vllm", "hf-local").success).toBe(true);
    const noLora = engine(undefined, "hf-local");
    expect(noLora.error!.issues.map((i) => i.message)).toContain(
      "per-user adapters are served by the embedded policy, or by SGLang/vLLM multi-LoRA: set policy.loraAdapters",
    );
    const embeddedTrainer = engine("sglang", "embedded");
    expect(embeddedTrainer.error!.issues.map((i) => i.message)).toContain(
      "per-user adapters on SGLang/vLLM are PEFT folders: choose trainer hf-local (or tinker with its endpoint)",
    );
  });

  it("asks the judge for hints where something trains on them: OPD and Combine, and the embedded adapters' demonstrations", () => {
    const hints = (c: Record<string, unknown>) => judgeExtractsHints(ExperimentConfigSchema.parse(c));
    expect(hints({ method: "grpo" })).toBe(false);
    expect(hints({ method: "opd" })).toBe(true);
    expect(hints({ method: "grpo", personalization: "per-user" })).toBe(true);
    expect(hints({ method: "grpo", personalization: "per-user", perUser: { hindsightSamples: 0 } })).toBe(false);
    // hf-local steps each user's adapter with the method's own step: GRPO reads no hint
    const gpu = { policy: { kind: "sglang", baseUrl: "http://10.0.0.5:30000/v1", model: "m", loraAdapters: "sglang" } };
    expect(hints({ method: "grpo", personalization: "per-user", trainer: { backend: "hf-local" }, ...gpu })).toBe(
      false,
    );
    expect(hints({ method: "combine", personalization: "per-user", trainer: { backend: "hf-local" }, ...gpu })).toBe(
      true,
    );
  });

  it("serves new users a shared adapter on the embedded trainer only, and says so elsewhere", () => {
    expect(
      ExperimentConfigSchema.parse({ personalization: "per-user", perUser: { newUsers: "shared" } }).perUser.newUsers,
    ).toBe("shared");
    const gpu = ExperimentConfigSchema.safeParse({
      personalization: "per-user",
      perUser: { newUsers: "shared" },
      policy: { kind: "sglang", baseUrl: "http://10.0.0.5:30000/v1", model: "m", loraAdapters: "sglang" },
      trainer: { backend: "hf-local" },
    });
    expect(gpu.error!.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      [
        "perUser.newUsers",
        "a shared adapter for new users is trained by the embedded trainer only; on hf-local new users are served the base",
      ],
    ]);
  });

  it("takes Tinker per user behind the bridge's endpoint (SGLang's LoRA routes), and nothing else for Tinker", () => {
    const tinker = (policy: Record<string, unknown>) =>
      ExperimentConfigSchema.safeParse({ personalization: "per-user", policy, trainer: { backend: "tinker" } });
    const endpoint = { kind: "sglang", baseUrl: "http://trainer-host:30010/v1", model: "Qwen/Qwen3-4B" };
    expect(tinker({ ...endpoint, loraAdapters: "sglang" }).success).toBe(true);
    expect(tinker({ ...endpoint, loraAdapters: "vllm" }).error!.issues.map((i) => i.message)).toContain(
      "per-user adapters on Tinker are served by the bridge's endpoint, which speaks SGLang's LoRA routes: set loraAdapters sglang",
    );
    expect(tinker(endpoint).success).toBe(false);
    expect(tinker({ kind: "embedded" }).error!.issues.map((i) => i.message)).toContain(
      "per-user adapters are trained by the embedded trainer; the tinker backend has no per-user path yet",
    );
  });

  it("rejects an unknown mode", () => {
    expect(ExperimentConfigSchema.safeParse({ personalization: "per-team" }).success).toBe(false);
  });
});
