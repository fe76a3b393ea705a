// The error catalogue: every reason belongs to a code with a status, every code has a default reason of its
// own, and appError derives the code (so the status) from the reason.
import { describe, expect, it } from "vitest";
import {
  AppError,
  appError,
  defaultReason,
  ERROR_REASONS,
  HTTP_STATUS,
  type ErrorCode,
  type ErrorReason,
} from "../../../server/platform/errors";

describe("error reasons", () => {
  it("give every code a default reason of that code, and every reason a code with a status", () => {
    for (const code of Object.keys(HTTP_STATUS) as ErrorCode[]) expect(ERROR_REASONS[defaultReason(code)]).toBe(code);
    for (const reason of Object.keys(ERROR_REASONS) as ErrorReason[]) {
      expect(HTTP_STATUS[ERROR_REASONS[reason]]).toBeGreaterThanOrEqual(400);
      expect(reason).toMatch(/^[a-z]+(_[a-z]+)*$/);
    }
  });

  it("appError takes its code from the reason; the helpers carry their code's default", () => {
    const e = appError("missing_permission", "no");
    expect(e).toBeInstanceOf(AppError);
    expect([e.code, e.reason, e.message]).toEqual(["FORBIDDEN", "missing_permission", "no"]);
    expect(new AppError("CONFLICT", "taken").reason).toBe("conflict");
    expect(appError("malformed_cursor", "bad").code).toBe("BAD_REQUEST");
  });
});
