// The whole pipeline on its own Redis and behind a Postgres relay, for the fault suite and the soak bench:
// a private redis-server (restartable: the machine's shared one is never touched), a TCP relay to Postgres
// (cut to drop the workers' connections; the server itself keeps running), a tiny embedded base policy, an
// experiment with the heuristic judge and a RUNNING embedded run with a small batch, a proxy key, and the
// worker processes' environment.
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { Principal } from "../../server/access/principal";
import { env } from "../../server/platform/env";
import { createApiKey } from "../../server/apiKeys/service";
import { createExperiment } from "../../server/experiments/service";
import { ExperimentConfigSchema } from "../../server/config/experimentConfig";
import { startRun } from "../../server/runs/service";
import { spawnRedis, type RedisChoice } from "../../scripts/lib/redis";
import { makeBaseCheckpoint, TINY } from "./baseCheckpoint";
import { freePort } from "./cluster";
import { startForwarder } from "./tcpForwarder";

const admin: Principal = {
  kind: "apiKey",
  keyId: "faults",
  prefix: "faults",
  scopes: ["admin"],
  experimentId: null,
  runId: null,
  createdById: null,
};

export interface SystemOptions {
  batchSize: number;
  /** Extra environment for every worker. */
  workerEnv?: NodeJS.ProcessEnv;
}

export interface PipelineSystem {
  dataDir: string;
  experiment: { id: string; slug: string };
  runId: string;
  key: string;
  proxyUrl: string;
  redisDir: string;
  redis: RedisChoice;
  relay: Awaited<ReturnType<typeof startForwarder>>;
  workerEnv: NodeJS.ProcessEnv;
  /** Stops our redis-server and starts it again on the same port and data (AOF): queues survive. */
  restartRedis(): Promise<void>;
  close(): Promise<void>;
}

export async function startSystem(o: SystemOptions): Promise<PipelineSystem> {
  // Under DATA_DIR: an embedded checkpoint a config names must be inside MODELS_DIR or DATA_DIR.
  await mkdir(path.resolve(env().DATA_DIR), { recursive: true });
  const dataDir = await mkdtemp(path.join(path.resolve(env().DATA_DIR), "faults-"));
  const redisPort = await freePort();
  const redisDir = path.join(dataDir, "redis");
  let redis = await spawnRedis(redisDir, redisPort);
  const pgUrl = new URL(env().DATABASE_URL);
  const relay = await startForwarder({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  const relayed = new URL(env().DATABASE_URL);
  relayed.hostname = "127.0.0.1";
  relayed.port = String(relay.port());

  // Version 0 of the policy: small enough to serve and train in well under a second on two cores.
  const base = await makeBaseCheckpoint(dataDir, 7, TINY);
  const config = ExperimentConfigSchema.parse({
    method: "grpo",
    policy: { kind: "embedded", checkpoint: base },
    judge: { backend: { kind: "heuristic" } },
    hyper: { batchSize: o.batchSize, lr: 1e-3, maxStaleness: 1000, keepCheckpoints: 3 },
    serving: { maxTokens: 16 },
  });
  const name = `faults-${randomBytes(4).toString("hex")}`;
  const experiment = await createExperiment(admin, { name, slug: name, description: "fault injection", config });
  const run = await startRun(admin, experiment.id);
  const { key } = await createApiKey(null, { name: `${name}-proxy`, scopes: ["proxy"], experimentId: experiment.id });
  const proxyPort = await freePort();

  const workerEnv: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: relayed.toString(),
    REDIS_URL: redis.url,
    REDIS_PREFIX: `faults:${experiment.id}:`,
    PROXY_PORT: String(proxyPort),
    PROXY_HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    TRAINER_EXPERIMENTS: experiment.id,
    JUDGE_EXPERIMENTS: experiment.id,
    // A dead judge's jobs come back within seconds, and the sweeper catches what a Redis restart dropped.
    JUDGE_LOCK_MS: "5000",
    JUDGE_SWEEP_INTERVAL_MS: "2000",
    JUDGE_SWEEP_MIN_AGE_MS: "3000",
    JUDGE_FAILED_RETRY_MS: "3000",
    JUDGE_RETRIES: "1",
    ...o.workerEnv,
  };

  return {
    dataDir,
    experiment: { id: experiment.id, slug: experiment.slug },
    runId: run.id,
    key,
    proxyUrl: `http://127.0.0.1:${proxyPort}`,
    redisDir,
    get redis() {
      return redis;
    },
    relay,
    workerEnv,
    async restartRedis() {
      await redis.stop?.();
      redis = await spawnRedis(redisDir, redisPort);
    },
    async close() {
      await relay.close();
      await redis.stop?.();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
