// The supervisor's settings: the platform's "supervisor" section (server/platform/env.ts) plus the values the
// run domain narrows (server/runs/settings.ts).
import { describe, expect, it } from "vitest";
import { controlPlaneUrl, supervisorSettings } from "../../../../server/runs/settings";

describe("supervisorSettings", () => {
  it("defaults, and empty variables count as unset", () => {
    const s = supervisorSettings({ SLIME_DIR: "", TRAINER_HEARTBEAT_TIMEOUT_S: "", PUBLIC_URL: "" });
    expect(s).toMatchObject({ TRAINER_HEARTBEAT_TIMEOUT_S: 600, TRAINER_STARTUP_GRACE_S: 1800, WEB_PORT: 3000 });
    expect(s.SLIME_DIR).toBeUndefined();
    expect(controlPlaneUrl(s)).toBe("http://127.0.0.1:3000");
    expect(controlPlaneUrl(supervisorSettings({ PUBLIC_URL: "https://cp.example" }))).toBe("https://cp.example");
  });

  it("parses the JSON and list variables and narrows the profile and role commands", () => {
    const s = supervisorSettings({
      SLIME_PROFILE: "upstream-slime",
      SLIME_PYTHONPATH: "/opt/Megatron-LM::/opt/console",
      SLIME_EXTRA_ARGS: '["--seed","7"]',
      LOCAL_PROCESS_ROLES: JSON.stringify({
        actor: { command: ["python3", "a.py"] },
        rollout: { command: ["python3", "r.py"], cwd: "/w" },
      }),
    });
    expect(s.SLIME_PROFILE).toBe("upstream-slime");
    expect(s.SLIME_PYTHONPATH).toEqual(["/opt/Megatron-LM", "/opt/console"]);
    expect(s.SLIME_EXTRA_ARGS).toEqual(["--seed", "7"]);
    expect(s.LOCAL_PROCESS_ROLES).toEqual({
      actor: { command: ["python3", "a.py"] },
      rollout: { command: ["python3", "r.py"], cwd: "/w" },
    });
  });

  it("names the variable that is wrong", () => {
    expect(() => supervisorSettings({ SLIME_PROFILE: "slime-2" })).toThrow(
      /^Invalid supervisor settings: SLIME_PROFILE: /,
    );
    expect(() => supervisorSettings({ LOCAL_PROCESS_ROLES: "{actor" })).toThrow(/LOCAL_PROCESS_ROLES: must be JSON/);
    expect(() => supervisorSettings({ LOCAL_PROCESS_ROLES: '{"actor":{"command":[]}}' })).toThrow(
      /Invalid supervisor settings: LOCAL_PROCESS_ROLES\.actor\.command/,
    );
    expect(() => supervisorSettings({ TRAINER_JOB_LOST_S: "soon" })).toThrow(/TRAINER_JOB_LOST_S/);
  });
});
