// The experiment config's per-user personalization option: its defaults and the backends that refuse it.
import { describe, expect, it } from "vitest";
import { ExperimentConfigSchema } from "../../../server/config/experimentConfig";

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
    });
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

  it("rejects an unknown mode", () => {
    expect(ExperimentConfigSchema.safeParse({ personalization: "per-team" }).success).toBe(false);
  });
});
