import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunLaunchSchema, type RunLaunch, type RunLaunchConfigInput } from "../../../../server/runs/backends/backend";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { preflightJobId, RaySlimeBackend } from "../../../../server/runs/backends/ray/backend";
import {
  mapRayStatus,
  rayErrorSummary,
  RayJobsClient,
  RayJobsError,
} from "../../../../server/runs/backends/ray/client";
import { startFakeRayJobsServer, type FakeRayJobsServer } from "../../../fakes/rayJobsServer";

let ray: FakeRayJobsServer;
beforeEach(async () => {
  ray = await startFakeRayJobsServer();
});
afterEach(async () => {
  await ray.close();
});

function launch(runId = "run_1", config: Partial<RunLaunchConfigInput> = {}): RunLaunch {
  return RunLaunchSchema.parse({
    runId,
    experimentSlug: "exp",
    config: {
      controlPlaneUrl: "http://console:3000",
      apiKey: "ocrl_key_1",
      slime: { hfCheckpoint: "/models/Qwen3-4B" },
      ray: { address: ray.url, workingDir: "/opt/slime" },
      ...config,
    },
  });
}

/** Starts the run and walks its preflight job to SUCCEEDED, after which status() submits the real job. */
async function startPastPreflight(backend: RaySlimeBackend, run: RunLaunch) {
  await backend.start(run);
  ray.transition(preflightJobId(run.runId), "RUNNING");
  ray.transition(preflightJobId(run.runId), "SUCCEEDED");
  expect(await backend.status(run)).toEqual({
    state: "PENDING",
    message: "preflight passed; the slime job is submitted",
  });
}

describe("RaySlimeBackend against the fake Ray Jobs API", () => {
  it("uploads the run's package, runs the preflight, then submits the slime job under the run id; the key is never in env_vars", async () => {
    const backend = new RaySlimeBackend();
    const run = launch();
    expect(await backend.start(run)).toEqual({ externalJobId: "run_1" });
    expect(ray.jobs.has("run_1")).toBe(false);
    const pre = ray.jobs.get("run_1-preflight")!;
    expect(pre.entrypoint).toBe(
      'OPENCLAW_PKG="$PWD" && cd /opt/slime && python3 -m integrations.slime.preflight --args-file "$OPENCLAW_PKG/slime_args.json"',
    );
    expect((await backend.status(run)).message).toMatch(/^preflight: checking/);

    ray.transition("run_1-preflight", "RUNNING");
    ray.transition("run_1-preflight", "SUCCEEDED");
    expect((await backend.status(run)).state).toBe("PENDING");
    const job = ray.jobs.get("run_1")!;
    expect(job.entrypoint.startsWith("cd /opt/slime && python3 train_async.py --actor-num-nodes 1 ")).toBe(true);
    const env = job.runtime_env as { env_vars: Record<string, string>; working_dir: string };
    expect(env.env_vars).toMatchObject({
      CONTROL_PLANE_URL: "http://console:3000",
      RUN_ID: "run_1",
      OPENCLAW_API_KEY_FILE: "openclaw_run_key",
    });
    expect(
      JSON.stringify(job.runtime_env) + JSON.stringify(job.metadata) + JSON.stringify(pre.metadata) + job.entrypoint,
    ).not.toContain("ocrl_key_1");
    expect(job.metadata).toMatchObject({ openclaw_run_id: "run_1", openclaw_experiment: "exp" });
    expect(job.metadata.openclaw_launch).toMatch(/^[0-9a-f]{16}$/);

    // The package is a zip Python's zipfile reads: the key and the argument list the preflight checks.
    const zip = ray.packages.get(env.working_dir)!;
    const dir = mkdtempSync(path.join(tmpdir(), "rawpkg-"));
    writeFileSync(path.join(dir, "p.zip"), zip);
    execFileSync("python3", [
      "-c",
      "import sys,zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])",
      path.join(dir, "p.zip"),
      path.join(dir, "x"),
    ]);
    expect(readFileSync(path.join(dir, "x", "openclaw_run_key"), "utf8")).toBe("ocrl_key_1");
    const args = JSON.parse(readFileSync(path.join(dir, "x", "slime_args.json"), "utf8")) as string[];
    expect(args.slice(0, 2)).toEqual(["--actor-num-nodes", "1"]);
    expect(job.entrypoint.endsWith(args.at(-1)!)).toBe(true);
  });

  it("a failing preflight fails the run in seconds with every problem it printed", async () => {
    const backend = new RaySlimeBackend();
    const run = launch();
    await backend.start(run);
    ray.transition("run_1-preflight", "RUNNING");
    ray.appendLogs(
      "run_1-preflight",
      "PREFLIGHT OK: slime imports\nPREFLIGHT PROBLEM: --rotary-base 1000000 != rope_theta 5000000\nPREFLIGHT PROBLEM: 4 GPUs per node, need 8\nPREFLIGHT FAILED: 2 problem(s)\n",
    );
    ray.transition("run_1-preflight", "FAILED");
    expect(await backend.status(run)).toEqual({
      state: "FAILED",
      message:
        "preflight failed (2 problems listed): --rotary-base 1000000 != rope_theta 5000000; 4 GPUs per node, need 8",
    });
    expect(ray.jobs.has("run_1")).toBe(false);
    expect(await backend.logs(run)).toContain("[preflight]\nPREFLIGHT OK: slime imports");
  });

  it("runtime_env never sets both conda and pip, and a URI slime dir is refused (the working_dir is the key package)", async () => {
    const backend = new RaySlimeBackend();
    const both = launch("r", {
      ray: { address: ray.url, workingDir: "/opt/slime", pythonEnv: { conda: "slime", pip: ["x"] } },
    });
    await expect(backend.start(both)).rejects.toThrowError(/either a conda env .* or pip packages, not both/);
    const uri = launch("r", { ray: { address: ray.url, workingDir: "s3://b/slime.zip" } });
    await expect(backend.start(uri)).rejects.toThrowError(/SLIME_DIR is a URI/);
    expect(ray.requests.filter((r) => r.method === "POST")).toHaveLength(0);
  });

  it("maps PENDING → RUNNING → SUCCEEDED onto PENDING → RUNNING → FINISHED", async () => {
    const backend = new RaySlimeBackend();
    const run = launch();
    await startPastPreflight(backend, run);
    expect((await backend.status(run)).state).toBe("PENDING");
    ray.transition("run_1", "RUNNING");
    expect(await backend.status(run)).toEqual({ state: "RUNNING", message: "Job is currently running." });
    ray.transition("run_1", "SUCCEEDED");
    expect(await backend.status(run)).toEqual({ state: "FINISHED", message: "Job finished successfully." });
  });

  it("a failed job is FAILED with Ray's message and error type", async () => {
    const backend = new RaySlimeBackend();
    const run = launch();
    await startPastPreflight(backend, run);
    ray.transition("run_1", "RUNNING");
    ray.transition(
      "run_1",
      "FAILED",
      "Job entrypoint command failed with exit code 1, last available logs: CUDA out of memory",
    );
    expect(await backend.status(run)).toEqual({
      state: "FAILED",
      message:
        "Job entrypoint command failed with exit code 1, last available logs: CUDA out of memory (JOB_ENTRYPOINT_COMMAND_ERROR)",
    });
  });

  it("stop moves the job to STOPPED (KILLED for us); stopping again or an unknown job is harmless", async () => {
    const backend = new RaySlimeBackend();
    const run = launch();
    await startPastPreflight(backend, run);
    ray.transition("run_1", "RUNNING");
    await backend.stop(run);
    expect(ray.jobs.get("run_1")!.status).toBe("STOPPED");
    expect(await backend.status(run)).toEqual({ state: "KILLED", message: "Job was intentionally stopped." });
    await backend.stop(run);
    await backend.stop({ ...run, runId: "never_submitted" });
    expect(ray.requests.filter((r) => r.path.endsWith("/stop")).map((r) => r.path)).toEqual([
      "/api/jobs/run_1-preflight/stop",
      "/api/jobs/run_1/stop",
      "/api/jobs/run_1-preflight/stop",
      "/api/jobs/run_1/stop",
      "/api/jobs/never_submitted-preflight/stop",
      "/api/jobs/never_submitted/stop",
    ]);
  });

  it("logs, whole or tailed", async () => {
    const backend = new RaySlimeBackend();
    const run = launch();
    await startPastPreflight(backend, run);
    ray.appendLogs("run_1", "line 1\nline 2\nline 3\n");
    expect(await backend.logs(run)).toBe("line 1\nline 2\nline 3\n");
    expect(await backend.logs(run, { tail: 2 })).toBe("line 2\nline 3");
    expect(await backend.logs(run, { tail: 0 })).toBe("");
  });

  it("a run without a Ray address is refused with the field to set", async () => {
    const run = launch("r", { ray: undefined });
    await expect(new RaySlimeBackend().start(run)).rejects.toThrowError(/the config has no Ray address \(ray.address/);
  });

  it("a job Ray does not know is reported LOST with a reason", async () => {
    const status = await new RaySlimeBackend().status(launch("gone"));
    expect(status.state).toBe("LOST");
    expect(status.message).toMatch(/Ray has no job gone/);
  });
});

describe("launch preview", () => {
  const notes = (config: Partial<RunLaunchConfigInput>) => new RaySlimeBackend().preview(launch("run_1", config)).notes;

  it("says per method what trains, on which GPUs, with which teacher and hint policy", () => {
    const grpo = notes({ method: "grpo" });
    expect(grpo).toContainEqual(expect.stringMatching(/^GPUs: /));
    expect(grpo).toContainEqual(expect.stringContaining("Method grpo: slime's GRPO"));
    expect(grpo.some((n) => n.startsWith("Hints:"))).toBe(false);

    const opd = notes({ method: "opd", gpu: { prmGpus: 2 }, hints: { selection: "shortest", m: 4 } });
    expect(opd).toContainEqual(expect.stringContaining("on_policy_distillation"));
    expect(opd).toContainEqual(expect.stringContaining("never a router"));
    expect(opd).toContainEqual(expect.stringContaining("1 PRM engine(s) on 2 GPU(s)"));
    expect(opd).toContainEqual(
      "Hints: 4 hint call(s) per turn; the judge trains on the shortest accepted hint (recorded as --hint-m / --hint-selection).",
    );

    const fourWay = notes({
      method: "combine",
      gpu: { prmGpus: 1, prmGpusPerEngine: 1, prmTeacherGpus: 1 },
      slime: { hfCheckpoint: "/models/Qwen3-4B", prmModelPath: "/models/prm" },
    });
    expect(fourWay).toContainEqual(
      expect.stringContaining("in-job Megatron PRM teacher (1 GPU(s), --prm-teacher-load /models/prm)"),
    );
    expect(fourWay).toContainEqual(expect.stringMatching(/PRM teacher 1/));
    expect(fourWay).toContainEqual(
      "Hints: 3 hint call(s) per turn; the judge trains on the longest (the reference) accepted hint (recorded as --hint-m).",
    );
    // Top-K OPD on the 4-way split: what runs, on which teacher, with which clip.
    const topk = notes({
      method: "topk",
      gpu: { prmGpus: 1, prmGpusPerEngine: 1, prmTeacherGpus: 1 },
      hyperparameters: { distillTopK: 4 },
    });
    expect(topk).toContainEqual(expect.stringContaining("top-4 tokens"));
    expect(topk).toContainEqual(expect.stringContaining("advantage-difference clip ±1 (upstream's launcher)"));
    // The hybrid: GRPO + top-K, the teacher once per hint candidate, the selection mode, on which GPUs.
    const hybrid = notes({
      method: "combine",
      gpu: { prmGpus: 1, prmGpusPerEngine: 1, prmTeacherGpus: 1 },
      hyperparameters: { opdEstimator: "topk", distillTopK: 4 },
      hints: { selection: "token_optimal", m: 3 },
    });
    expect(hybrid).toContainEqual(expect.stringMatching(/^GPUs: .*PRM teacher 1/));
    expect(hybrid).toContainEqual(
      expect.stringMatching(
        /^Method combine \(upstream's hybrid, top-K estimator\): .*w_rl 1 × GRPO .*w_opd 1 × top-K OPD over the student's top-4 tokens; advantage-difference clip ±1\. .*at most 3, shortest first.*runs once per candidate.*--hint-selection token_optimal picks the candidate per token\.$/,
      ),
    );
    expect(hybrid).toContainEqual(
      "Hints: 3 hint call(s) per turn; every accepted hint is a candidate (deduplicated, shortest first), the trainer picks among them (recorded as --hint-m / --hint-selection).",
    );
    // Without PRM engines the judge is the experiment's endpoint.
    expect(notes({ method: "grpo", gpu: { prmGpus: 0 } })).toContainEqual(
      expect.stringContaining("experiment's judge endpoint"),
    );
  });

  it("refuses what is known not to work, with the reason", () => {
    const backend = new RaySlimeBackend();
    expect(() => backend.preview(launch("run_1", { method: "topk" }))).toThrowError(
      /needs the in-job Megatron PRM teacher/,
    );
    expect(() =>
      backend.preview(launch("run_1", { method: "combine", hyperparameters: { opdEstimator: "topk" } })),
    ).toThrowError(/top-K hybrid \(combine with the topk estimator\) on slime needs the in-job Megatron PRM teacher/);
    expect(() =>
      backend.preview(launch("run_1", { method: "combine", lora: { enabled: true, rank: 16, alpha: 32 } })),
    ).toThrowError(/ignores --loss-type custom_loss/);
    expect(() =>
      backend.preview(
        launch("run_1", {
          method: "opd",
          gpu: { prmGpus: 1, prmGpusPerEngine: 1, prmTeacherGpus: 1 },
        }),
      ),
    ).toThrowError(/serves methods combine and topk only/);
  });
});

describe("idempotent start", () => {
  for (const duplicateStatus of [500, 400] as const) {
    it(`a retried start (Ray answers the duplicate with ${duplicateStatus}) launches once and succeeds`, async () => {
      await ray.close();
      ray = await startFakeRayJobsServer({ duplicateStatus });
      const backend = new RaySlimeBackend();
      expect(await backend.start(launch())).toEqual({ externalJobId: "run_1" });
      // the retry may carry a newly issued API key: still the same launch
      expect(await backend.start(launch("run_1", { apiKey: "ocrl_key_2" }))).toEqual({ externalJobId: "run_1" });
      expect(ray.jobs.size).toBe(1);
      expect(ray.requests.filter((r) => r.method === "POST" && r.path === "/api/jobs/")).toHaveLength(2);
      expect([...ray.jobs.keys()]).toEqual(["run_1-preflight"]);
    });
  }

  it("a different job under the same submission id is a conflict, not a success", async () => {
    const backend = new RaySlimeBackend();
    await backend.start(launch());
    const changed = launch("run_1", { hyperparameters: { lr: 3e-6 } });
    await expect(backend.start(changed)).rejects.toMatchObject({
      name: "RayJobsError",
      kind: "conflict",
      message: expect.stringMatching(
        /^Ray already has a different job with submission id run_1-preflight \(its metadata openclaw_launch is /,
      ),
    });
    const otherExperiment = { ...launch(), experimentSlug: "other" };
    await expect(backend.start(otherExperiment)).rejects.toThrowError(
      /its metadata openclaw_experiment is "exp", expected "other"/,
    );
  });
});

describe("RayJobsClient errors", () => {
  it("surfaces Ray's plain-text 404", async () => {
    const client = new RayJobsClient({ address: ray.url + "/" });
    const err = await client.getJob("nope").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RayJobsError);
    expect(err).toMatchObject({ kind: "http", status: 404, body: "Job nope does not exist", notFound: true });
    expect((err as Error).message).toBe("Ray GET /api/jobs/nope failed with HTTP 404: Job nope does not exist");
  });

  it("surfaces Ray's 400 for a bad request", async () => {
    const client = new RayJobsClient({ address: ray.url });
    const err = (await client
      .submitJob({ entrypoint: "echo hi", submission_id: "x", metadata: { n: 1 as unknown as string } })
      .catch((e: unknown) => e)) as RayJobsError;
    expect(err.status).toBe(400);
    expect(err.message).toBe(
      "Ray POST /api/jobs/ failed with HTTP 400: TypeError: metadata must be a dict of str to str",
    );
  });

  it("an unreachable dashboard is a network error naming the address", async () => {
    const address = ray.url;
    await ray.close();
    const err = (await new RayJobsClient({ address }).version().catch((e: unknown) => e)) as RayJobsError;
    expect(err.kind).toBe("network");
    expect(err.message).toContain(`could not reach the Ray dashboard at ${address}`);
    ray = await startFakeRayJobsServer(); // for afterEach
  });

  it("lists jobs and reads the version", async () => {
    const client = new RayJobsClient({ address: ray.url });
    await client.submitJob({ entrypoint: "echo a", submission_id: "a" });
    await client.submitJob({ entrypoint: "echo b", submission_id: "b" });
    expect((await client.listJobs()).map((j) => [j.submission_id, j.status])).toEqual([
      ["a", "PENDING"],
      ["b", "PENDING"],
    ]);
    expect((await client.version()).ray_version).toBe("2.40.0");
    expect(await client.stopJob("a")).toBe(true);
    expect(await client.stopJob("a")).toBe(false);
  });

  it("rayErrorSummary picks the innermost exception of a wrapped traceback", () => {
    const body =
      'Traceback (most recent call last):\n  File "job_head.py", line 1, in submit_job\n' +
      "RuntimeError: Request failed with status code 400: Traceback (most recent call last):\n" +
      '  File "job_manager.py", line 2\nValueError: Job with submission_id r already exists. Please use a different submission_id.\n.';
    expect(rayErrorSummary(body)).toBe(
      "ValueError: Job with submission_id r already exists. Please use a different submission_id",
    );
    expect(rayErrorSummary("  plain text  ")).toBe("plain text");
  });

  it("maps every Ray status", () => {
    expect(["PENDING", "RUNNING", "SUCCEEDED", "FAILED", "STOPPED"].map((s) => mapRayStatus(s as never))).toEqual([
      "PENDING",
      "RUNNING",
      "FINISHED",
      "FAILED",
      "KILLED",
    ]);
  });
});
