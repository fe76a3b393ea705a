// A fake Ray dashboard serving the Jobs REST API on 127.0.0.1, following ray-project/ray's openapi.yml and
// dashboard/modules/job/job_head.py: JSON bodies on success, text/plain errors (404 "Job X does not exist",
// 400 for bad requests), and a duplicate submission_id rejected with Ray's own ValueError text. Jobs never
// move by themselves: tests drive PENDING → RUNNING → SUCCEEDED/FAILED, and stop moves a job to STOPPED.
// Packages (job_head.py `upload_package` / `get_package`): PUT /api/packages/{protocol}/{name} stores the
// body, GET answers 200 when it exists and 404 otherwise (the content is never served back). Like Ray, a
// submission whose runtime_env names both `conda` and `pip` is refused (runtime_env.py validation:
// "The 'pip' field and 'conda' field of runtime_env cannot both be specified").
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeRayStatus = "PENDING" | "RUNNING" | "STOPPED" | "SUCCEEDED" | "FAILED";

export interface FakeRayJob {
  submission_id: string;
  job_id: string | null;
  type: "SUBMISSION";
  status: FakeRayStatus;
  entrypoint: string;
  message: string;
  error_type: string | null;
  start_time: number;
  end_time: number | null;
  metadata: Record<string, string>;
  runtime_env: Record<string, unknown>;
  driver_info: null;
  logs: string;
}

export interface FakeRayRequest {
  method: string;
  path: string;
  body?: unknown;
}

export interface FakeRayJobsServer {
  url: string;
  jobs: Map<string, FakeRayJob>;
  /** Uploaded packages by URI (gcs://_ray_pkg_….zip). */
  packages: Map<string, Buffer>;
  requests: FakeRayRequest[];
  /** Move a job along Ray's lifecycle; throws on transitions Ray never makes (out of a terminal state, PENDING → SUCCEEDED). */
  transition(id: string, status: "RUNNING" | "SUCCEEDED" | "FAILED", message?: string): void;
  appendLogs(id: string, text: string): void;
  close(): Promise<void>;
}

export interface FakeRayOptions {
  /**
   * Status for a duplicate submission_id. Ray ≥ 2.9 proxies submissions to a job agent and wraps the agent's
   * 400 into a 500 whose text carries the traceback; older heads answered 400 directly.
   */
  duplicateStatus?: 400 | 500;
}

const TERMINAL: FakeRayStatus[] = ["STOPPED", "SUCCEEDED", "FAILED"];
const PENDING_MESSAGE =
  "Job has not started yet. It may be waiting for resources (CPUs, GPUs, memory, custom resources) to become available. It may be waiting for the runtime environment to be set up.";

function traceback(exception: string): string {
  return [
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3/site-packages/ray/dashboard/modules/job/job_manager.py", line 523, in submit_job',
    "    raise ValueError(",
    exception,
  ].join("\n");
}

export async function startFakeRayJobsServer(opts: FakeRayOptions = {}): Promise<FakeRayJobsServer> {
  const jobs = new Map<string, FakeRayJob>();
  const packages = new Map<string, Buffer>();
  const requests: FakeRayRequest[] = [];
  let counter = 0;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(status, {
      "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json",
    });
    res.end(text);
  };
  const publicJob = (job: FakeRayJob) => {
    const { logs: _logs, ...rest } = job;
    return rest;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const method = req.method ?? "GET";
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const pkg = /^\/api\/packages\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (pkg) {
      requests.push({ method, path: url.pathname });
      const uri = `${pkg[1]}://${pkg[2]}`;
      if (method === "PUT") {
        packages.set(uri, Buffer.concat(chunks));
        return send(res, 200, { result: "success", msg: `Successfully uploaded package ${uri}`, data: {} });
      }
      if (method === "GET")
        return packages.has(uri)
          ? send(res, 200, { result: "success" })
          : send(res, 404, `Package ${uri} does not exist`);
    }
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    if (raw) {
      try {
        body = JSON.parse(raw);
      } catch {
        requests.push({ method, path: url.pathname });
        return send(res, 400, `Bad Request: body is not valid JSON: ${raw.slice(0, 100)}`);
      }
    }
    requests.push({ method, path: url.pathname, ...(body === undefined ? {} : { body }) });

    if (method === "GET" && url.pathname === "/api/version") {
      return send(res, 200, { version: "4", ray_version: "2.40.0", ray_commit: "fake", session_name: "fake" });
    }
    if (url.pathname === "/api/jobs/" && method === "GET") return send(res, 200, [...jobs.values()].map(publicJob));
    if (url.pathname === "/api/jobs/" && method === "POST") {
      const b = (body ?? {}) as Record<string, unknown>;
      if (typeof b.entrypoint !== "string") {
        return send(res, 400, "Bad Request: the field 'entrypoint' is required and must be a string.");
      }
      if (
        b.metadata !== undefined &&
        (typeof b.metadata !== "object" ||
          b.metadata === null ||
          Object.values(b.metadata).some((v) => typeof v !== "string"))
      ) {
        return send(res, 400, traceback("TypeError: metadata must be a dict of str to str."));
      }
      const env = (b.runtime_env ?? {}) as Record<string, unknown>;
      if (env.conda !== undefined && env.pip !== undefined) {
        return send(
          res,
          400,
          traceback("ValueError: The 'pip' field and 'conda' field of runtime_env cannot both be specified."),
        );
      }
      const id =
        typeof b.submission_id === "string" && b.submission_id
          ? b.submission_id
          : `raysubmit_${(++counter).toString(36).padStart(16, "0")}`;
      if (jobs.has(id)) {
        const inner = traceback(
          `ValueError: Job with submission_id ${id} already exists. Please use a different submission_id.`,
        );
        return (opts.duplicateStatus ?? 500) === 500
          ? send(
              res,
              500,
              `Traceback (most recent call last):\n  File "job_head.py", line 355, in submit_job\nRuntimeError: Request failed with status code 400: ${inner}.`,
            )
          : send(res, 400, inner);
      }
      jobs.set(id, {
        submission_id: id,
        job_id: null,
        type: "SUBMISSION",
        status: "PENDING",
        entrypoint: b.entrypoint,
        message: PENDING_MESSAGE,
        error_type: null,
        start_time: Date.now(),
        end_time: null,
        metadata: (b.metadata as Record<string, string> | undefined) ?? {},
        runtime_env: (b.runtime_env as Record<string, unknown> | undefined) ?? {},
        driver_info: null,
        logs: "",
      });
      return send(res, 200, { job_id: id, submission_id: id });
    }

    const match = /^\/api\/jobs\/([^/]+)(\/logs|\/stop)?$/.exec(url.pathname);
    if (match) {
      const id = decodeURIComponent(match[1]);
      const job = jobs.get(id);
      if (!job) return send(res, 404, `Job ${id} does not exist`);
      if (!match[2] && method === "GET") return send(res, 200, publicJob(job));
      if (match[2] === "/logs" && method === "GET") return send(res, 200, { logs: job.logs });
      if (match[2] === "/stop" && method === "POST") {
        if (TERMINAL.includes(job.status)) return send(res, 200, { stopped: false });
        Object.assign(job, { status: "STOPPED", message: "Job was intentionally stopped.", end_time: Date.now() });
        return send(res, 200, { stopped: true });
      }
      if (!match[2] && method === "DELETE") {
        if (!TERMINAL.includes(job.status)) {
          return send(
            res,
            400,
            `Attempted to delete job with submission_id ${id}, but it is in a non-terminal state ${job.status}.`,
          );
        }
        jobs.delete(id);
        return send(res, 200, { deleted: true });
      }
    }
    return send(res, 404, "404: Not Found");
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    jobs,
    packages,
    requests,
    transition(id, status, message) {
      const job = jobs.get(id);
      if (!job) throw new Error(`fake Ray: no job ${id}`);
      if (TERMINAL.includes(job.status)) throw new Error(`fake Ray: job ${id} is already ${job.status}`);
      // A PENDING job may fail (e.g. runtime_env setup) but only a running one can succeed.
      if (status === "SUCCEEDED" && job.status === "PENDING")
        throw new Error(`fake Ray: job ${id} must be RUNNING before SUCCEEDED`);
      job.status = status;
      if (status === "RUNNING") job.message = "Job is currently running.";
      if (status === "SUCCEEDED")
        Object.assign(job, { message: message ?? "Job finished successfully.", end_time: Date.now() });
      if (status === "FAILED") {
        Object.assign(job, {
          message: message ?? "Job entrypoint command failed with exit code 1",
          error_type: "JOB_ENTRYPOINT_COMMAND_ERROR",
          end_time: Date.now(),
        });
      }
    },
    appendLogs(id, text) {
      const job = jobs.get(id);
      if (!job) throw new Error(`fake Ray: no job ${id}`);
      job.logs += text;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections(); // fetch keeps connections alive; close() alone would wait for them
      }),
  };
}
