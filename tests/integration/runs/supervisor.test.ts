import { execFile, execFileSync } from "node:child_process";
// The run supervisor against a fake Ray dashboard (tests/fakes/rayJobsServer.ts) and harmless local processes:
// launch with an experiment-bound trainer key, status mapping, heartbeat and job loss → CRASHED, user stop →
// job stopped, logs tail and launch preview over the REST API.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Principal } from "../../../server/access/principal";
import { db } from "../../../server/platform/db/client";
import { actOnRun, startRun } from "../../../server/runs/service";
import { runLogPath } from "../../../server/runs/logs";
import { supervisorSettings } from "../../../server/runs/settings";
import { RunSupervisor } from "../../../server/runs/supervisor";
import { startFakeRayJobsServer, type FakeRayJobsServer } from "../../fakes/rayJobsServer";
import { startForwarder } from "../../../bench/lib/tcpForwarder";
import { startApiServer } from "../../helpers/apiServer";
import { ADMIN, api, makeExperiment, makeKey } from "../../helpers/fixtures";
import { SLIME_EXPERIMENT } from "../training/leases/helpers";

const admin: Principal = {
  kind: "apiKey",
  keyId: "supervisor-test",
  prefix: "sup",
  scopes: ["admin"],
  experimentId: null,
  runId: null,
  createdById: null,
};
const quiet = () => {};

let server: Awaited<ReturnType<typeof startApiServer>>;
let ray: FakeRayJobsServer;
beforeAll(async () => {
  server = await startApiServer();
  ray = await startFakeRayJobsServer();
});
afterAll(async () => {
  server.close();
  await ray.close();
});

const SETTINGS = {
  SLIME_DIR: "/opt/slime",
  SLIME_PYTHONPATH: "/opt/Megatron-LM:/opt/console",
  CONTROL_PLANE_URL: "http://cp.test:3000",
};

async function rayRun(rayAddress = ray.url) {
  const e = await makeExperiment({ ...SLIME_EXPERIMENT, trainer: { backend: "ray-slime", rayAddress } }, { by: ADMIN });
  const run = await startRun(admin, e.id);
  return { e, run };
}
/** A supervisor scoped to the given experiments, so it never touches other test files' runs. */
const supervisor = (
  experimentIds: string[],
  extra: Record<string, string> = {},
  base: Record<string, string> = SETTINGS,
) => new RunSupervisor({ settings: supervisorSettings({ ...base, ...extra }), log: quiet, experimentIds });
const load = (id: string) => db().run.findUniqueOrThrow({ where: { id } });
/** The preflight job passes; the next tick submits the real job under the run id. */
async function passPreflight(sup: RunSupervisor, runId: string, r: FakeRayJobsServer = ray) {
  r.transition(`${runId}-preflight`, "RUNNING");
  r.transition(`${runId}-preflight`, "SUCCEEDED");
  await sup.tick();
}
/** The run's key as the job reads it: from the package Ray was given as working_dir, never from env_vars. */
function packagedKey(job: { runtime_env: Record<string, unknown> }): string {
  const zip = ray.packages.get(job.runtime_env.working_dir as string)!;
  return execFileSync(
    "python3",
    [
      "-c",
      "import io,sys,zipfile; print(zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read())).read('openclaw_run_key').decode(), end='')",
    ],
    { input: zip },
  ).toString();
}
/**
 * Unpacks the job's package as Ray does (its working_dir, where every worker starts) and loads the real rollout
 * function's per-process state there with the job's env_vars: its first report authenticates with the key it
 * read from OPENCLAW_API_KEY_FILE. Only CONTROL_PLANE_URL and PYTHONPATH differ (this API, this checkout).
 */
async function rolloutReportsFromPackage(
  job: { runtime_env: Record<string, unknown> },
  apiUrl: string,
): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), "ray-pkg-"));
  execFileSync(
    "python3",
    ["-c", "import io,sys,zipfile; zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read())).extractall(sys.argv[1])", dir],
    {
      input: ray.packages.get(job.runtime_env.working_dir as string)!,
    },
  );
  const script = [
    "import argparse, os",
    "from integrations.slime import rollout",
    "rollout.TOKENIZER_LOADER = lambda args: None",
    // As slime's RolloutManager leaves args: both routers started, the PRM engines' included (--prm-*).
    "args = argparse.Namespace(sglang_router_ip='127.0.0.1', sglang_router_port=3456, prm_enable=True, prm_num_gpus=2,",
    "    prm_router_ip='127.0.0.1', prm_router_port=3789, prm_model_path='/models/prm', save=None, start_rollout_id=0)",
    "job = rollout._Job(args, dict(os.environ))",
    "print('key from file:', job.client.settings.api_key == open('openclaw_run_key').read())",
    "job.start(args)",
    "job.heartbeat.stop()",
  ].join("\n");
  const vars = job.runtime_env.env_vars as Record<string, string>;
  const env: Record<string, string> = {
    ...vars,
    CONTROL_PLANE_URL: apiUrl,
    PYTHONPATH: path.resolve(import.meta.dirname, "../../.."),
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    PYTHONDONTWRITEBYTECODE: "1",
  };
  // Asynchronous: the API it reports to runs in this process.
  const { stdout } = await promisify(execFile)("python3", ["-c", script], { cwd: dir, env: env as NodeJS.ProcessEnv });
  return stdout;
}
const submissions = (id: string) =>
  ray.requests.filter(
    (r) =>
      r.method === "POST" && r.path === "/api/jobs/" && (r.body as { submission_id?: string }).submission_id === id,
  ).length;

describe("ray-slime runs", () => {
  it("launches once with an experiment-bound key, follows Ray's states and revokes the key at the end", async () => {
    const { e, run } = await rayRun();
    const sup = supervisor([e.id]);
    expect((await sup.tick()).launched).toEqual([run.id]);
    await passPreflight(sup, run.id);

    const job = ray.jobs.get(run.id)!;
    expect(job.entrypoint).toMatch(/^cd \/opt\/slime && python3 train_async\.py /);
    expect(job.entrypoint).toContain("--rollout-function-path integrations.slime.rollout.generate_rollout");
    const vars = job.runtime_env.env_vars as Record<string, string>;
    expect(vars).toMatchObject({
      RUN_ID: run.id,
      CONTROL_PLANE_URL: "http://cp.test:3000",
      PYTHONPATH: "/opt/Megatron-LM:/opt/console",
      OPENCLAW_METHOD: "grpo",
    });
    // The job's key is a real write key of this experiment: it may report for the run.
    expect(JSON.stringify(job.runtime_env)).not.toMatch(/ocrl_/);
    const trainer = api(server.url, { bearer: packagedKey(job) });
    expect((await trainer("POST", `/api/v1/runs/${run.id}/report`, {})).status).toBe(200);
    // The rollout function, started in the unpacked package with the job's env_vars, reports with that key.
    expect(vars).not.toHaveProperty("CONTROL_PLANE_API_KEY");
    expect(await rolloutReportsFromPackage(job, server.url)).toContain("key from file: True");
    expect(await load(run.id)).toMatchObject({
      rolloutUrl: "http://127.0.0.1:3456/v1",
      prmUrl: "http://127.0.0.1:3789",
      prmModelPath: "/models/prm",
    });
    expect(await db().apiKey.findFirst({ where: { name: `trainer:run:${run.id}` } })).toMatchObject({
      scopes: ["trainer"],
      experimentId: e.id,
      runId: run.id,
      revokedAt: null,
    });
    expect(await load(run.id)).toMatchObject({ status: "PENDING", externalJobId: run.id });

    await sup.tick();
    expect((await load(run.id)).statusMessage).toContain("Job has not started yet");
    ray.transition(run.id, "RUNNING");
    await sup.tick();
    const running = await load(run.id);
    expect(running.status).toBe("RUNNING");
    expect(running.startedAt).not.toBeNull();

    ray.transition(run.id, "SUCCEEDED", "Job finished successfully.");
    await sup.tick();
    expect(await load(run.id)).toMatchObject({ status: "FINISHED", statusMessage: "Job finished successfully." });
    expect(submissions(run.id)).toBe(1);
    expect((await trainer("POST", `/api/v1/runs/${run.id}/report`, {})).status).toBe(401);
  });

  it("marks a run CRASHED and stops its job when the trainer stops heartbeating", async () => {
    const { e, run } = await rayRun();
    const sup = supervisor([e.id]);
    await sup.tick();
    await passPreflight(sup, run.id);
    ray.transition(run.id, "RUNNING");
    await sup.tick();
    await db().run.update({ where: { id: run.id }, data: { heartbeatAt: new Date(Date.now() - 2 * 3600_000) } });
    await sup.tick();
    const crashed = await load(run.id);
    expect(crashed.status).toBe("CRASHED");
    expect(crashed.statusMessage).toMatch(/no heartbeat from the trainer for 120 min/);
    expect(ray.jobs.get(run.id)!.status).toBe("STOPPED");
  });

  it("gives a starting trainer a grace period before its first heartbeat", async () => {
    const { e, run } = await rayRun();
    const sup = supervisor([e.id], { TRAINER_STARTUP_GRACE_S: "3600" });
    await sup.tick();
    await passPreflight(sup, run.id);
    ray.transition(run.id, "RUNNING");
    await sup.tick();
    await db().run.update({ where: { id: run.id }, data: { startedAt: new Date(Date.now() - 1800_000) } });
    await sup.tick();
    expect((await load(run.id)).status).toBe("RUNNING");
    await db().run.update({ where: { id: run.id }, data: { startedAt: new Date(Date.now() - 7200_000) } });
    await sup.tick();
    expect(await load(run.id)).toMatchObject({
      status: "CRASHED",
      statusMessage: expect.stringMatching(/never reported/),
    });
  });

  it("stops the Ray job of a run the user stopped, once", async () => {
    const { e, run } = await rayRun();
    const sup = supervisor([e.id]);
    await sup.tick();
    await passPreflight(sup, run.id);
    ray.transition(run.id, "RUNNING");
    await sup.tick();
    await actOnRun(admin, { id: run.id, action: "stop" });
    expect((await sup.tick()).stopped).toEqual([run.id]);
    expect(ray.jobs.get(run.id)!.status).toBe("STOPPED");
    const stops = () => ray.requests.filter((r) => r.path === `/api/jobs/${run.id}/stop`).length;
    expect(stops()).toBe(1);
    await sup.tick();
    expect(stops()).toBe(1);
    expect((await load(run.id)).status).toBe("KILLED");
  });

  it("revokes a stopped run's trainer key at once and backs off while its job cannot be stopped, then stops it", async () => {
    const relay = await startForwarder({ host: "127.0.0.1", port: Number(new URL(ray.url).port) });
    try {
      const { e, run } = await rayRun(`http://127.0.0.1:${relay.port()}`);
      let clock = Date.now();
      const lines: string[] = [];
      const sup = new RunSupervisor({
        settings: supervisorSettings(SETTINGS),
        log: (l) => lines.push(l),
        experimentIds: [e.id],
        now: () => new Date(clock),
      });
      await sup.tick();
      await passPreflight(sup, run.id);
      ray.transition(run.id, "RUNNING");
      await sup.tick();
      expect(await db().apiKey.count({ where: { name: `trainer:run:${run.id}`, revokedAt: null } })).toBe(1);

      await relay.down();
      await actOnRun(admin, { id: run.id, action: "stop" });
      await sup.tick();
      const failures = () => lines.filter((l) => l.includes("stopping its job failed")).length;
      expect(failures()).toBe(1);
      expect(await db().apiKey.count({ where: { name: `trainer:run:${run.id}`, revokedAt: null } })).toBe(0);
      await sup.tick(); // within the 10 s backoff: no new attempt
      expect(failures()).toBe(1);
      clock += 11_000;
      await sup.tick();
      expect(failures()).toBe(2);
      expect(lines.at(-1)).toMatch(/attempt 2\), retrying in 20 s/);

      await relay.up();
      clock += 21_000;
      expect((await sup.tick()).stopped).toEqual([run.id]);
      expect(ray.jobs.get(run.id)!.status).toBe("STOPPED");
    } finally {
      await relay.close();
    }
  });

  it("marks a run CRASHED when Ray has lost its job", async () => {
    const { e, run } = await rayRun();
    const sup = supervisor([e.id]);
    await sup.tick();
    await passPreflight(sup, run.id);
    // A Ray cluster restart forgets every job, the preflight included.
    ray.jobs.delete(run.id);
    ray.jobs.delete(`${run.id}-preflight`);
    await sup.tick();
    expect(await load(run.id)).toMatchObject({
      status: "CRASHED",
      statusMessage: expect.stringMatching(/job was lost: Ray has no job/),
    });
  });

  it("retries while Ray is unreachable, then gives up: CRASHED once launched, FAILED before", async () => {
    const gone = await startFakeRayJobsServer();
    const { e, run } = await rayRun(gone.url);
    const never = await rayRun(gone.url);
    const patient = supervisor([e.id]);
    await patient.tick();
    await passPreflight(patient, run.id, gone);
    gone.transition(run.id, "RUNNING");
    await patient.tick();
    await gone.close();
    await patient.tick();
    expect(await load(run.id)).toMatchObject({
      status: "RUNNING",
      statusMessage: expect.stringMatching(/cannot read the job's status .*could not reach the Ray dashboard/),
    });
    const impatient = supervisor([e.id], { TRAINER_JOB_LOST_S: "0" });
    await impatient.tick();
    expect(await load(run.id)).toMatchObject({
      status: "CRASHED",
      statusMessage: expect.stringMatching(/lost contact with the ray-slime job/),
    });

    await supervisor([never.e.id]).tick();
    expect(await load(never.run.id)).toMatchObject({
      status: "PENDING",
      externalJobId: null,
      statusMessage: expect.stringMatching(/could not launch yet/),
    });
    expect(await db().apiKey.count({ where: { name: `trainer:run:${never.run.id}`, revokedAt: null } })).toBe(0);
    await supervisor([never.e.id], { TRAINER_LAUNCH_TIMEOUT_S: "0" }).tick();
    expect(await load(never.run.id)).toMatchObject({
      status: "FAILED",
      statusMessage: expect.stringMatching(/^could not launch: could not reach the Ray dashboard/),
    });
  });

  it("serves the launch preview and the Ray logs tail over REST", async () => {
    const { e, run } = await rayRun();
    const reader = api(server.url, { bearer: await makeKey(["read"], e.id) });
    const preview = await reader("GET", `/api/v1/experiments/${e.id}/launch-preview`);
    expect(preview.status).toBe(200);
    const command = preview.body.command as string;
    expect(command).toContain("python3 train_async.py");
    expect(command).toContain("--rollout-function-path integrations.slime.rollout.generate_rollout");
    expect(command).not.toContain("CONTROL_PLANE_API_KEY");
    expect(preview.body).toMatchObject({ trainerBackend: "ray-slime", error: null, needsUserKey: false });

    const sup = supervisor([e.id]);
    await sup.tick();
    await passPreflight(sup, run.id);
    ray.appendLogs(run.id, "line 1\nline 2\nline 3\n");
    const logs = await reader("GET", `/api/v1/runs/${run.id}/logs?tail=2`);
    expect(logs.body).toMatchObject({ source: "ray", text: "line 2\nline 3" });
  });
});

describe("local-process runs", () => {
  // Harmless stand-ins for the roles: print what they were given, then idle until stopped.
  const role = (name: string) => ({
    command: [
      process.execPath,
      "-e",
      `console.log("${name} on GPUs " + process.env.CUDA_VISIBLE_DEVICES + " for " + process.env.RUN_ID); setInterval(() => {}, 1000)`,
    ],
  });
  const local = {
    ...SETTINGS,
    LOCAL_PROCESS_ROLES: JSON.stringify({ actor: role("actor"), rollout: role("rollout"), prm: role("prm") }),
  };
  const alive = (runId: string) =>
    readdirSync("/proc").filter((p) => {
      if (!/^\d+$/.test(p)) return false;
      try {
        const stat = readFileSync(`/proc/${p}/stat`, "utf8");
        return (
          readFileSync(`/proc/${p}/environ`, "utf8").includes(`RUN_ID=${runId}`) &&
          !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0]!)
        );
      } catch {
        return false;
      }
    }).length;

  async function localRun() {
    const e = await makeExperiment({ ...SLIME_EXPERIMENT, trainer: { backend: "local-process" } }, { by: ADMIN });
    return { ...(await startRun(admin, e.id)), sup: supervisor([e.id], {}, local) };
  }

  async function untilLogged(sup: RunSupervisor, runId: string, what: RegExp) {
    for (let i = 0; i < 200; i++) {
      await sup.tick();
      try {
        const text = readFileSync(runLogPath(runId), "utf8");
        if (what.test(text)) return text;
      } catch {
        // not saved yet
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no log matching ${what}`);
  }

  it("runs each role on its GPUs, saves their logs for the API, and ends exactly those processes on stop", async () => {
    const run = await localRun();
    const sup = run.sup;
    // The three roles start side by side and write in any order: wait until every one has logged.
    const text = await untilLogged(
      sup,
      run.id,
      /^(?=[\s\S]*actor on GPUs)(?=[\s\S]*rollout on GPUs)(?=[\s\S]*prm on GPUs)/,
    );
    expect(text).toContain(`actor on GPUs 0,1,2,3 for ${run.id}`);
    expect(text).toContain(`rollout on GPUs 4,5 for ${run.id}`);
    expect(text).toContain(`prm on GPUs 6,7 for ${run.id}`);
    expect((await load(run.id)).status).toBe("RUNNING");
    expect(alive(run.id)).toBe(3);

    const owner = api(server.url, { bearer: await makeKey(["read"]) });
    const logs = await owner("GET", `/api/v1/runs/${run.id}/logs?tail=100`);
    expect(logs.body).toMatchObject({ source: "file", trainerBackend: "local-process" });
    expect(logs.body.text).toContain("actor on GPUs 0,1,2,3");

    await actOnRun(admin, { id: run.id, action: "stop" });
    expect((await sup.tick()).stopped).toEqual([run.id]);
    expect(alive(run.id)).toBe(0);
  });

  it("ends its processes on shutdown and records why; another process finds such a run lost", async () => {
    const run = await localRun();
    const sup = run.sup;
    await untilLogged(sup, run.id, /prm on GPUs/);
    await sup.shutdown();
    expect(alive(run.id)).toBe(0);
    expect(await load(run.id)).toMatchObject({
      status: "CRASHED",
      statusMessage: expect.stringMatching(/train worker shut down/),
    });

    const orphan = await localRun();
    await db().run.update({ where: { id: orphan.id }, data: { status: "RUNNING", externalJobId: "local:999999" } });
    await orphan.sup.tick();
    expect(await load(orphan.id)).toMatchObject({
      status: "CRASHED",
      statusMessage: expect.stringMatching(/job was lost: no local processes are tracked/),
    });
  });
});
