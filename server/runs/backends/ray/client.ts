// Ray Jobs REST client (the dashboard's /api/jobs API, ray-project/ray openapi.yml and job_head.py).
// Ray answers errors as text/plain, often a Python traceback; RayJobsError keeps the body and shows its
// meaningful line.
import { z } from "zod";
import type { TrainerRunState } from "../backend";
import { egressFetch } from "../../../platform/egress";

export const RayJobStatusSchema = z.enum(["PENDING", "RUNNING", "STOPPED", "SUCCEEDED", "FAILED"]);
export type RayJobStatus = z.output<typeof RayJobStatusSchema>;

/** The JobDetails fields we use; Ray sends more (driver_info, runtime_env, …), which are kept loosely. */
export const RayJobDetailsSchema = z.looseObject({
  submission_id: z.string().nullish(),
  job_id: z.string().nullish(),
  status: RayJobStatusSchema,
  entrypoint: z.string(),
  message: z.string().nullish(),
  error_type: z.string().nullish(),
  start_time: z.number().nullish(),
  end_time: z.number().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});
export type RayJobDetails = z.output<typeof RayJobDetailsSchema>;

const SubmitResponseSchema = z.looseObject({ submission_id: z.string() });
const LogsResponseSchema = z.looseObject({ logs: z.string() });
const StopResponseSchema = z.looseObject({ stopped: z.boolean() });
const VersionResponseSchema = z.looseObject({ version: z.string(), ray_version: z.string().optional() });

export interface RaySubmitRequest {
  entrypoint: string;
  /** Our run id: Ray refuses a second job with the same id, which makes start() retry-safe. */
  submission_id: string;
  runtime_env?: Record<string, unknown>;
  /** String map, shown in the dashboard and returned with the job. */
  metadata?: Record<string, string>;
  entrypoint_num_cpus?: number;
  entrypoint_num_gpus?: number;
  entrypoint_resources?: Record<string, number>;
}

export type RayJobsErrorKind = "http" | "network" | "protocol" | "conflict";

export class RayJobsError extends Error {
  constructor(
    message: string,
    readonly kind: RayJobsErrorKind,
    readonly status?: number,
    /** The server's full plain-text body, tracebacks included. */
    readonly body?: string,
  ) {
    super(message);
    this.name = "RayJobsError";
  }

  get notFound(): boolean {
    return this.kind === "http" && this.status === 404;
  }
}

/**
 * The line worth showing from a Ray error body: the exception line of a traceback
 * ("ValueError: Job with submission_id … already exists…"), otherwise the trimmed body.
 */
export function rayErrorSummary(body: string): string {
  const trimmed = body.trim();
  if (!trimmed.includes("Traceback (most recent call last)")) return trimmed;
  const lines = trimmed
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  // The agent's error is re-raised by the head as "RuntimeError: Request failed with status code 400: <traceback>.",
  // so the innermost exception is the last "SomeError: …" line.
  const exceptionLines = lines.filter((l) => /^[A-Za-z_][\w.]*(Error|Exception): /.test(l));
  const last = exceptionLines[exceptionLines.length - 1] ?? lines[lines.length - 1];
  return last.replace(/\.$/, "");
}

/** Ray's own duplicate-submission error (status 400 from older heads, 500 wrapping the agent's 400 from newer). */
export function isDuplicateSubmission(body: string): boolean {
  return /already exists/i.test(body) && /submission_id/i.test(body);
}

/** Ray job status → our run state. */
export function mapRayStatus(status: RayJobStatus): TrainerRunState {
  switch (status) {
    case "PENDING":
      return "PENDING";
    case "RUNNING":
      return "RUNNING";
    case "SUCCEEDED":
      return "FINISHED";
    case "FAILED":
      return "FAILED";
    case "STOPPED":
      return "KILLED";
  }
}

export interface RayJobsClientOptions {
  /** Dashboard address, e.g. http://head:8265. */
  address: string;
  fetch?: typeof fetch;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** Extra headers, e.g. a proxy's Authorization. */
  headers?: Record<string, string>;
}

export class RayJobsClient {
  private readonly base: string;
  private readonly doFetch: (url: string, init?: RequestInit) => Promise<Response>;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;

  constructor(opts: RayJobsClientOptions) {
    this.base = opts.address.replace(/\/+$/, "");
    // The dashboard address is user-configured: call-time egress check, no redirects (platform/egress.ts).
    this.doFetch = opts.fetch ?? egressFetch;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.headers = opts.headers ?? {};
  }

  async version(): Promise<z.output<typeof VersionResponseSchema>> {
    return this.json("GET", "/api/version", VersionResponseSchema);
  }

  /**
   * Submits a job. When Ray already holds a job with this submission_id, the existing job is accepted only if
   * its entrypoint and our metadata match (a retried start); otherwise a "conflict" RayJobsError is thrown.
   */
  async submitJob(
    req: RaySubmitRequest,
    opts: { volatileMetadata?: string[] } = {},
  ): Promise<{ submissionId: string; alreadyExisted: boolean }> {
    try {
      const res = await this.json("POST", "/api/jobs/", SubmitResponseSchema, req);
      return { submissionId: res.submission_id, alreadyExisted: false };
    } catch (err) {
      if (!(err instanceof RayJobsError) || err.kind !== "http" || !isDuplicateSubmission(err.body ?? "")) throw err;
    }
    const existing = await this.getJob(req.submission_id);
    const mismatch = describeMismatch(existing, req, new Set(opts.volatileMetadata ?? []));
    if (mismatch) {
      throw new RayJobsError(
        `Ray already has a different job with submission id ${req.submission_id} (${mismatch}); refusing to treat it as this run`,
        "conflict",
      );
    }
    return { submissionId: req.submission_id, alreadyExisted: true };
  }

  /** Uploads a working_dir/py_modules package (job_head.py `upload_package`); `uri` like gcs://_ray_pkg_<hash>.zip. */
  async uploadPackage(uri: string, zip: Buffer): Promise<void> {
    const m = /^([a-z]+):\/\/([^/]+)$/.exec(uri);
    if (!m) throw new RayJobsError(`not a package URI: ${uri}`, "protocol");
    const path = `/api/packages/${m[1]}/${m[2]}`;
    let res: Response;
    try {
      res = await this.doFetch(this.base + path, {
        method: "PUT",
        headers: this.headers,
        body: new Uint8Array(zip),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new RayJobsError(
        `could not reach the Ray dashboard at ${this.base} (PUT ${path}): ${err instanceof Error ? err.message : String(err)}`,
        "network",
      );
    }
    const text = await res.text();
    if (!res.ok)
      throw new RayJobsError(
        `Ray PUT ${path} failed with HTTP ${res.status}: ${rayErrorSummary(text) || res.statusText}`,
        "http",
        res.status,
        text,
      );
  }

  async getJob(id: string): Promise<RayJobDetails> {
    return this.json("GET", `/api/jobs/${encodeURIComponent(id)}`, RayJobDetailsSchema);
  }

  async listJobs(): Promise<RayJobDetails[]> {
    return this.json("GET", "/api/jobs/", z.array(RayJobDetailsSchema));
  }

  async getJobLogs(id: string): Promise<string> {
    return (await this.json("GET", `/api/jobs/${encodeURIComponent(id)}/logs`, LogsResponseSchema)).logs;
  }

  /** Returns false when the job was already in a terminal state. */
  async stopJob(id: string): Promise<boolean> {
    return (await this.json("POST", `/api/jobs/${encodeURIComponent(id)}/stop`, StopResponseSchema)).stopped;
  }

  private async json<T extends z.ZodType>(
    method: string,
    path: string,
    schema: T,
    body?: unknown,
  ): Promise<z.output<T>> {
    const url = this.base + path;
    let res: Response;
    try {
      res = await this.doFetch(url, {
        method,
        headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...this.headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const reason =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      throw new RayJobsError(
        `could not reach the Ray dashboard at ${this.base} (${method} ${path}): ${reason}`,
        "network",
      );
    }
    const text = await res.text();
    if (!res.ok) {
      throw new RayJobsError(
        `Ray ${method} ${path} failed with HTTP ${res.status}: ${rayErrorSummary(text) || res.statusText}`,
        "http",
        res.status,
        text,
      );
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new RayJobsError(
        `Ray ${method} ${path} answered non-JSON (${text.length} bytes)`,
        "protocol",
        res.status,
        text,
      );
    }
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      throw new RayJobsError(
        `Ray ${method} ${path} answered an unexpected shape: ${parsed.error.message}`,
        "protocol",
        res.status,
        text,
      );
    }
    return parsed.data;
  }
}

function describeMismatch(existing: RayJobDetails, req: RaySubmitRequest, volatile: Set<string>): string | null {
  if (existing.entrypoint !== req.entrypoint) return "its entrypoint differs";
  const stored = existing.metadata ?? {};
  for (const [key, value] of Object.entries(req.metadata ?? {})) {
    if (volatile.has(key)) continue;
    if (stored[key] !== value)
      return `its metadata ${key} is ${JSON.stringify(stored[key] ?? null)}, expected ${JSON.stringify(value)}`;
  }
  return null;
}
