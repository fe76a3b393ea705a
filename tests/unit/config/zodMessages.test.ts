import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ExperimentCreateInput } from "../../../server/experiments/schemas";
import "../../../server/platform/zodMessages";

const messages = (schema: z.ZodType, input: unknown) => {
  const r = schema.safeParse(input);
  return r.success ? {} : Object.fromEntries(r.error.issues.map((i) => [i.path.join(".") || "(root)", i.message]));
};

describe("zod messages in our wording", () => {
  it("replaces zod's built-in texts for the checks the config uses", () => {
    const schema = z
      .object({
        votes: z.number().int().min(1),
        lr: z.number().positive(),
        cap: z.number().max(2),
        name: z.string().min(1),
        code: z.string().min(3),
        kind: z.enum(["a", "b"]),
        url: z.string().url(),
        missing: z.number(),
        steps: z.number().int(),
        mode: z.discriminatedUnion("kind", [z.object({ kind: z.literal("x") }), z.object({ kind: z.literal("y") })]),
      })
      .strict();
    expect(
      messages(schema, {
        votes: 0,
        lr: 0,
        cap: 3,
        name: "",
        code: "ab",
        kind: "c",
        url: "nope",
        steps: 1.5,
        mode: { kind: "z" },
        extra: 1,
      }),
    ).toEqual({
      votes: "must be at least 1",
      lr: "must be above 0",
      cap: "must be at most 2",
      name: "required",
      code: "needs at least 3 characters",
      kind: "must be one of: a, b",
      url: "must be a URL",
      missing: "required",
      steps: "must be a whole number",
      "mode.kind": "must be one of: x, y",
      "(root)": "unknown field: extra",
    });
    expect(messages(z.object({ n: z.number() }), { n: "3" })).toEqual({ n: "must be a number" });
  });

  it("keeps a schema's own message", () => {
    expect(messages(z.object({ v: z.number().min(1, "at least one vote") }), { v: 0 })).toEqual({
      v: "at least one vote",
    });
  });

  it("reports every problem of an experiment form at once: name, slug and config together", () => {
    expect(
      messages(ExperimentCreateInput, {
        name: " ",
        slug: "Bad Slug",
        config: { judge: { votes: 0, maxTokens: 8 }, hyper: { batchSize: 0 } },
      }),
    ).toEqual({
      name: "name is required",
      slug: "slug may contain lowercase letters, digits and dashes, starting with a letter or digit",
      "config.judge.votes": "at least one vote",
      "config.judge.maxTokens": "must be at least 16",
      "config.hyper.batchSize": "must be at least 1",
    });
  });
});
