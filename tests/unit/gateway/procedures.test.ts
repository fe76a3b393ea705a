// Every procedure definition declares its output schema: tRPC validates answers against it and the OpenAPI
// document types its response from it (tRPC-only procedures included, which the OpenAPI test cannot see).
import { describe, expect, it } from "vitest";
import { flatten } from "../../../server/gateway/procedures/define";
import { procedures } from "../../../server/gateway/procedures";

describe("procedure definitions", () => {
  it("each have an output schema", () => {
    const all = flatten(procedures);
    expect(all.length).toBeGreaterThan(60);
    expect(all.filter(({ def }) => !def.output).map(({ path }) => path)).toEqual([]);
  });
});
