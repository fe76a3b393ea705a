// The one run-status list: every status of the Prisma enum is either live or terminal, and which is which is
// decided here, so a status added to the enum fails this test until someone decides.
import { describe, expect, it } from "vitest";
import {
  isLiveRunStatus,
  LIVE_RUN_STATUSES,
  RUN_STATUSES,
  STARTED_RUN_STATUSES,
  TERMINAL_RUN_STATUSES,
} from "../../../server/platform/db/runStatus";

describe("run statuses", () => {
  it("split the enum into live and terminal", () => {
    expect(RUN_STATUSES).toEqual(["PENDING", "RUNNING", "PAUSED", "FINISHED", "FAILED", "CRASHED", "KILLED"]);
    expect(LIVE_RUN_STATUSES).toEqual(["PENDING", "RUNNING", "PAUSED"]);
    expect(TERMINAL_RUN_STATUSES).toEqual(["FINISHED", "FAILED", "CRASHED", "KILLED"]);
    expect(STARTED_RUN_STATUSES.every((s) => LIVE_RUN_STATUSES.includes(s))).toBe(true);
    expect(RUN_STATUSES.filter(isLiveRunStatus)).toEqual(LIVE_RUN_STATUSES);
    expect(isLiveRunStatus("SOMETHING")).toBe(false);
  });
});
