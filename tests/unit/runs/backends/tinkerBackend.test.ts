// The Tinker backend runs the Python bridge as a child in its own process group. Here the "bridge" is the
// real one (which, with no Tinker SDK installed on this machine, explains that and exits) or a harmless
// stand-in interpreter that records its environment and idles; the bridge's Python tests run against a
// fake of the documented Tinker SDK calls.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RunLaunchSchema, type RunLaunch } from "../../../../server/runs/backends/backend";
import { groupAlive } from "../../../../server/runs/backends/localProcess/processGroup";
import {
  TINKER_NOT_TRACKED,
  TinkerBackend,
  TinkerSettingsSchema,
  tinkerCommand,
} from "../../../../server/runs/backends/tinker/backend";

const root = path.resolve(import.meta.dirname, "../../../..");

function launch(runId = `run-${Math.random().toString(36).slice(2)}`): RunLaunch {
  return RunLaunchSchema.parse({
    runId,
    experimentSlug: "tinker-exp",
    config: {
      method: "combine",
      hyperparameters: { lr: 3e-5, batchSize: 4, wOpd: 0.5, wRl: 2 },
      lora: { enabled: true, rank: 16, alpha: 32 },
      slime: { hfCheckpoint: "Qwen/Qwen3-4B-Instruct-2507" },
      controlPlaneUrl: "http://127.0.0.1:3000",
      apiKey: "ocrl_trainer_key",
    },
  });
}

async function until<T>(fn: () => Promise<T | null>, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await fn();
    if (v !== null) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("tinkerCommand", () => {
  it("passes the run, the hyperparameters and the user's key to the bridge", () => {
    const { argv, env } = tinkerCommand(
      launch("r1"),
      TinkerSettingsSchema.parse({ apiKey: "tk-user", loss: "ppo", cwd: "/opt/console" }),
    );
    expect(argv).toEqual(["python3", "-m", "integrations.tinker.bridge"]);
    expect(env).toMatchObject({
      RUN_ID: "r1",
      CONTROL_PLANE_URL: "http://127.0.0.1:3000",
      CONTROL_PLANE_API_KEY: "ocrl_trainer_key",
      TINKER_API_KEY: "tk-user",
      TINKER_BASE_MODEL: "Qwen/Qwen3-4B-Instruct-2507",
      TINKER_LORA_RANK: "16",
      TINKER_LEARNING_RATE: "0.00003",
      TINKER_BATCH_SIZE: "4",
      TINKER_LOSS: "ppo",
      OPENCLAW_METHOD: "combine",
      OPENCLAW_COMBINE_W_OPD: "0.5",
      OPENCLAW_COMBINE_W_RL: "2",
    });
    expect(
      tinkerCommand(launch(), TinkerSettingsSchema.parse({ baseModel: "meta-llama/Llama-3.1-8B" })).env
        .TINKER_BASE_MODEL,
    ).toBe("meta-llama/Llama-3.1-8B");
  });

  it("asks the bridge to serve the trained weights only when a port is set", () => {
    expect(tinkerCommand(launch(), TinkerSettingsSchema.parse({})).env).not.toHaveProperty("TINKER_SERVE_PORT");
    const served = tinkerCommand(
      launch(),
      TinkerSettingsSchema.parse({ serve: { port: 30010, url: "http://trainer:30010/v1" } }),
    ).env;
    expect(served).toMatchObject({ TINKER_SERVE_PORT: "30010", TINKER_SERVE_URL: "http://trainer:30010/v1" });
    expect(served).not.toHaveProperty("TINKER_SERVE_HOST");
  });

  it("trains one client per user for a per-user experiment, which needs the bridge's endpoint", () => {
    const l = launch();
    l.config.perUser = { rank: 4, alpha: 8 };
    expect(() => tinkerCommand(l, TinkerSettingsSchema.parse({}))).toThrow(/set TINKER_SERVE_PORT/);
    const env = tinkerCommand(l, TinkerSettingsSchema.parse({ serve: { port: 30010 } })).env;
    expect(env).toMatchObject({ TINKER_PER_USER: "1", TINKER_LORA_RANK: "4", TINKER_SERVE_PORT: "30010" });
    expect(tinkerCommand(launch(), TinkerSettingsSchema.parse({})).env).not.toHaveProperty("TINKER_PER_USER");
  });
});

describe("TinkerBackend", () => {
  it("previews the bridge's command with the keys hidden, and says whether the trained weights are served", () => {
    const plain = new TinkerBackend(TinkerSettingsSchema.parse({ cwd: "/opt/console" })).preview(launch("r2"));
    expect(plain.command).toContain("python3 -m integrations.tinker.bridge");
    expect(plain.command).not.toContain("ocrl_trainer_key");
    expect(plain.notes).toEqual([
      "Trains on Tinker (remote LoRA service), billed to your own Tinker account.",
      "Method combine: Tinker's importance_sampling loss on the per-token advantage 2·r + 0.5·(teacher − behaviour), with the recorded behaviour log-probs.",
      "TINKER_API_KEY is not set for the control plane: a launch would fail.",
      "The proxy keeps serving the configured policy: set TINKER_SERVE_PORT to serve the trained weights through it.",
    ]);
    const served = new TinkerBackend(TinkerSettingsSchema.parse({ apiKey: "tk-user", serve: { port: 30010 } })).preview(
      launch("r3"),
    );
    expect(served.command).not.toContain("tk-user");
    expect(served.command).toContain("export TINKER_SERVE_PORT=30010");
    expect(served.notes.slice(2)).toEqual([
      "The bridge serves the trained weights on port 30010 and reports it as the run's rollout URL: the proxy forwards this experiment's traffic there while the run is live.",
    ]);
  });

  it("refuses to start without the user's own Tinker key", async () => {
    const backend = new TinkerBackend(TinkerSettingsSchema.parse({ cwd: root }));
    await expect(backend.start(launch())).rejects.toThrow(/TINKER_API_KEY/);
  });

  it("reports the real bridge's failure when the Tinker SDK is missing", async () => {
    const backend = new TinkerBackend(TinkerSettingsSchema.parse({ apiKey: "tk-user", cwd: root }));
    const l = launch();
    const { externalJobId } = await backend.start(l);
    expect(externalJobId).toMatch(/^tinker:\d+$/);
    const status = await until(async () => {
      const s = await backend.status({ runId: l.runId, config: l.config });
      return s.state === "RUNNING" ? null : s;
    }, "the bridge to exit");
    expect(status.state).toBe("FAILED");
    expect(status.message).toContain("exited with code 2");
    expect(status.message).toContain("pip install tinker");
    expect(await backend.logs({ runId: l.runId, config: l.config })).toContain("the Tinker SDK is not installed");
  });

  it("stops the bridge's whole process group and reports it killed", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "tinker-"));
    const envFile = path.join(dir, "env.json");
    const fake = path.join(dir, "fake-python");
    // Stands in for python3: records argv/env, starts a grandchild in the same group, idles.
    writeFileSync(
      fake,
      `#!/bin/sh\necho "{\\"argv\\": \\"$*\\", \\"run\\": \\"$RUN_ID\\", \\"pp\\": \\"$PYTHONPATH\\", \\"db\\": \\"$DATABASE_URL\\"}" > ${envFile}\nsleep 300 &\necho started\nwait\n`,
    );
    chmodSync(fake, 0o755);
    const backend = new TinkerBackend(
      TinkerSettingsSchema.parse({ apiKey: "tk-user", cwd: root, python: fake, graceMs: 2000 }),
    );
    const l = launch();
    const { externalJobId } = await backend.start(l);
    const pgid = Number(externalJobId.split(":")[1]);
    await until(
      async () => ((await backend.logs({ runId: l.runId, config: l.config })).includes("started") ? true : null),
      "the stand-in to start",
    );
    const seen = JSON.parse(readFileSync(envFile, "utf8")) as { argv: string; run: string; pp: string; db: string };
    expect(seen).toEqual({
      argv: "-m integrations.tinker.bridge",
      run: l.runId,
      pp: expect.stringContaining(root),
      db: "",
    });
    expect((await backend.status({ runId: l.runId, config: l.config })).state).toBe("RUNNING");

    await backend.stop({ runId: l.runId, config: l.config });
    expect(await backend.status({ runId: l.runId, config: l.config })).toEqual({
      state: "KILLED",
      message: "stopped on request",
    });
    expect(groupAlive(pgid)).toBe(false);
  });

  it("says when it does not track a run (e.g. after a restart)", async () => {
    const backend = new TinkerBackend(TinkerSettingsSchema.parse({ apiKey: "k" }));
    const l = launch();
    expect(await backend.status({ runId: l.runId, config: l.config })).toEqual({
      state: "LOST",
      message: TINKER_NOT_TRACKED,
    });
  });
});

describe("Tinker bridge (Python)", () => {
  it("passes its unittest suite against the fake Tinker SDK", async () => {
    const childEnv: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      PYTHONDONTWRITEBYTECODE: "1",
    };
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn("python3", ["-m", "unittest", "discover", "-v", "-s", "integrations/tinker/tests"], {
        cwd: root,
        env: childEnv as NodeJS.ProcessEnv,
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (out += d.toString()));
      child.on("error", reject);
      child.on("exit", (c) => resolve({ code: c, output: out }));
    });
    expect(code, output).toBe(0);
    expect(output).toMatch(/Ran 30 tests/);
  });
});
