// The shared input pieces as a query string sends them: "false" is false (z.coerce.boolean would say true),
// limits are bounded and defaulted.
import { describe, expect, it } from "vitest";
import { IdSchema, LimitSchema, PageInput, QueryBool } from "../../../server/platform/schemas";
import { ApiKeyListInput } from "../../../server/users/schemas";

describe("shared input schemas", () => {
  it("read query-string booleans both ways and refuse anything else", () => {
    expect(["true", "1", true].map((v) => QueryBool.parse(v))).toEqual([true, true, true]);
    expect(["false", "0", false].map((v) => QueryBool.parse(v))).toEqual([false, false, false]);
    expect(QueryBool.safeParse("yes").success).toBe(false);
    // The API key list once read ?includeRevoked=false as true.
    expect(ApiKeyListInput.parse({ includeRevoked: "false" }).includeRevoked).toBe(false);
    expect(ApiKeyListInput.parse({ includeRevoked: "true" }).includeRevoked).toBe(true);
  });

  it("bound ids and limits, defaulting the limit", () => {
    expect(LimitSchema.parse(undefined)).toBe(50);
    expect(LimitSchema.parse("7")).toBe(7);
    expect(LimitSchema.safeParse("201").success).toBe(false);
    expect(PageInput.parse({})).toEqual({ limit: 50 });
    expect(IdSchema.safeParse("").success).toBe(false);
    expect(IdSchema.safeParse("x".repeat(65)).success).toBe(false);
  });
});
