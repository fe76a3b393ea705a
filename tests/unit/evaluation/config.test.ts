// The evaluation and promotion settings of the experiment config: defaults, and the 400s for combinations
// that could never work.
import { describe, expect, it } from "vitest";
import { ExperimentConfigSchema } from "../../../server/config/experimentConfig";

const issues = (input: unknown) => {
  const r = ExperimentConfigSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("evaluation config", () => {
  it("defaults to always-promote with evaluation off", () => {
    const c = ExperimentConfigSchema.parse({});
    expect(c.serving).toMatchObject({
      promotion: "always",
      gate: { tolerance: 0.05 },
      autoRollback: { enabled: false, margin: 0.3, minTurns: 20 },
    });
    expect(c.evaluation).toMatchObject({
      enabled: false,
      every: 1,
      grader: "persona",
      k: 2,
      seed: 1,
      budget: { maxReplyTokens: 20_000, maxSeconds: 600 },
      agreement: { kappaThreshold: 0.6, minLabeled: 30 },
    });
  });
  it("names what cannot work", () => {
    expect(issues({ serving: { promotion: "gated" } })).toEqual([
      "serving.promotion: gated promotion needs evaluation.enabled: nothing would ever be promoted",
    ]);
    expect(
      issues({
        serving: { promotion: "gated" },
        evaluation: { enabled: true },
        policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30000/v1", model: "m" },
      }),
    ).toEqual([
      "serving.promotion: an external rollout engine serves new weights as soon as it loads them: gated promotion needs the embedded policy",
    ]);
    expect(issues({ evaluation: { grader: "judge" } })).toEqual([
      "evaluation.grader: the judge grader needs a model judge (OpenAI-compatible or SGLang judge backend)",
    ]);
    expect(issues({ evaluation: { grader: "custom" } })).toEqual([
      "evaluation.graderPath: a custom grader needs the path to its module",
    ]);
    expect(issues({ serving: { gate: { tolerance: 2 } } })[0]).toMatch(/^serving\.gate\.tolerance:/);
    expect(issues({ serving: { promotion: "gated" }, evaluation: { enabled: true } })).toEqual([]);
    // the gate's own eval set: a name, and not where the gate reads a task set's held-out split
    expect(
      issues({ serving: { promotion: "gated", gate: { set: " asked questions " } }, evaluation: { enabled: true } }),
    ).toEqual([]);
    expect(ExperimentConfigSchema.parse({ serving: { gate: { set: " asked questions " } } }).serving.gate.set).toBe(
      "asked questions",
    );
    expect(issues({ serving: { gate: { set: "  " } } })[0]).toMatch(/^serving\.gate\.set:/);
    expect(
      issues({
        serving: { promotion: "gated", gate: { set: "asked questions" } },
        evaluation: { enabled: true, tasks: { taskSet: "t", environment: "e" } },
      }),
    ).toEqual([
      "serving.gate.set: an environment experiment's gate reads its task set's held-out split (evaluation.tasks), not an eval set",
    ]);
    // the confirmation draw: off by default, a boolean, and an eval set's (fresh seeds), not held-out episodes'
    expect(ExperimentConfigSchema.parse({}).serving.gate.confirm).toBe(false);
    expect(issues({ serving: { promotion: "gated", gate: { confirm: true } }, evaluation: { enabled: true } })).toEqual(
      [],
    );
    expect(issues({ serving: { gate: { confirm: "yes" } } })[0]).toMatch(/^serving\.gate\.confirm:/);
    expect(
      issues({
        serving: { promotion: "gated", gate: { confirm: true } },
        evaluation: { enabled: true, tasks: { taskSet: "t", environment: "e" } },
      }),
    ).toEqual([
      "serving.gate.confirm: a confirmation draw re-scores an eval set on fresh seeds; an environment experiment's gate reads held-out episodes (evaluation.tasks)",
    ]);
  });
});
