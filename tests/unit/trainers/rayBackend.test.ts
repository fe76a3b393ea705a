import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunLaunchSchema, type RunLaunch, type RunLaunchConfigInput } from "../../../server/runs/backends/backend";
import { RaySlimeBackend } from "../../../server/runs/backends/ray/backend";
import { mapRayStatus, rayErrorSummary, RayJobsClient, RayJobsError } from "../../../server/runs/backends/ray/client";
import { startFakeRayJobsServer, type FakeRayJobsServer } from "../../fakes/rayJobsServer";

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

describe("RaySlimeBackend against the fake Ray Jobs API", () => {
  it("submits under the run id with env vars, metadata and the slime entrypoint", async () => {
    const backend = new RaySlimeBackend();
    const run = launch();
    expect(await backend.start(run)).toEqual({ externalJobId: "run_1" });

    const job = ray.jobs.get("run_1")!;
    expect(job.entrypoint.startsWith("cd /opt/slime && python3 train_async.py --actor-num-nodes 1 ")).toBe(true);
    const env = (job.runtime_env as { env_vars: Record<string, string> }).env_vars;
    expect(env).toMatchObject({ CONTROL_PLANE_URL: "http://console:3000", CONTROL_PLANE_API_KEY: "ocrl_key_1", RUN_ID: "run_1" });
    expect(job.metadata).toMatchObject({ openclaw_run_id: "run_1", openclaw_experiment: "exp" });
    expect(job.metadata.openclaw_launch).toMatch(/^[0-9a-f]{16}$/);
    expect(ray.requests.filter((r) => r.method === "POST" && r.path === "/api/jobs/")).toHaveLength(1);
  });

  it("maps PENDING → RUNNING → SUCCEEDED onto PENDING → RUNNING → FINISHED", async () => {
    const backend = new RaySlimeBackend();
    const run = launch();
    await backend.start(run);
    expect((await backend.status(run)).state).toBe("PENDING");
    ray.transition("run_1", "RUNNING");
    expect(await backend.status(run)).toEqual({ state: "RUNNING", message: "Job is currently running." });
    ray.transition("run_1", "SUCCEEDED");
    expect(await backend.status(run)).toEqual({ state: "FINISHED", message: "Job finished successfully." });
  });

  it("a failed job is FAILED with Ray's message and error type", async () => {
    const backend = new RaySlimeBackend();
    const run = launch();
    await backend.start(run);
    ray.transition("run_1", "RUNNING");
    ray.transition("run_1", "FAILED", "Job entrypoint command failed with exit code 1, last available logs: CUDA out of memory");
    expect(await backend.status(run)).toEqual({
      state: "FAILED",
      message: "Job entrypoint command failed with exit code 1, last available logs: CUDA out of memory (JOB_ENTRYPOINT_COMMAND_ERROR)",
    });
  });

  it("stop moves the job to STOPPED (KILLED for us); stopping again or an unknown job is harmless", async () => {
    const backend = new RaySlimeBackend();
    const run = launch();
    await backend.start(run);
    ray.transition("run_1", "RUNNING");
    await backend.stop(run);
    expect(ray.jobs.get("run_1")!.status).toBe("STOPPED");
    expect(await backend.status(run)).toEqual({ state: "KILLED", message: "Job was intentionally stopped." });
    await backend.stop(run);
    await backend.stop({ ...run, runId: "never_submitted" });
    expect(ray.requests.filter((r) => r.path.endsWith("/stop")).map((r) => r.path)).toEqual([
      "/api/jobs/run_1/stop",
      "/api/jobs/run_1/stop",
      "/api/jobs/never_submitted/stop",
    ]);
  });

  it("logs, whole or tailed", async () => {
    const backend = new RaySlimeBackend();
    const run = launch();
    await backend.start(run);
    ray.appendLogs("run_1", "line 1\nline 2\nline 3\n");
    expect(await backend.logs(run)).toBe("line 1\nline 2\nline 3\n");
    expect(await backend.logs(run, { tail: 2 })).toBe("line 2\nline 3");
    expect(await backend.logs(run, { tail: 0 })).toBe("");
  });

  it("a run without a Ray address is refused with the field to set", async () => {
    const run = launch("r", { ray: undefined });
    await expect(new RaySlimeBackend().start(run)).rejects.toThrowError(/the config has no Ray address \(ray.address/);
  });

  it("a job Ray does not know is reported FAILED with a reason", async () => {
    const status = await new RaySlimeBackend().status(launch("gone"));
    expect(status.state).toBe("FAILED");
    expect(status.message).toMatch(/Ray has no job gone/);
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
    });
  }

  it("a different job under the same submission id is a conflict, not a success", async () => {
    const backend = new RaySlimeBackend();
    await backend.start(launch());
    const changed = launch("run_1", { hyperparameters: { lr: 3e-6 } });
    await expect(backend.start(changed)).rejects.toMatchObject({
      name: "RayJobsError",
      kind: "conflict",
      message: "Ray already has a different job with submission id run_1 (its entrypoint differs); refusing to treat it as this run",
    });
    const otherExperiment = { ...launch(), experimentSlug: "other" };
    await expect(backend.start(otherExperiment)).rejects.toThrowError(/its metadata openclaw_experiment is "exp", expected "other"/);
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
    expect(err.message).toBe("Ray POST /api/jobs/ failed with HTTP 400: TypeError: metadata must be a dict of str to str");
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
      "Traceback (most recent call last):\n  File \"job_head.py\", line 1, in submit_job\n" +
      "RuntimeError: Request failed with status code 400: Traceback (most recent call last):\n" +
      "  File \"job_manager.py\", line 2\nValueError: Job with submission_id r already exists. Please use a different submission_id.\n.";
    expect(rayErrorSummary(body)).toBe("ValueError: Job with submission_id r already exists. Please use a different submission_id");
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
