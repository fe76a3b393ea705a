// BullMQ gives at-least-once delivery and re-delivers a crashed worker's in-flight jobs (stalled-job check).
import { Queue, Worker, type Job, type WorkerOptions } from "bullmq";
import { QUEUES, type QueueName, type QueuePayload } from "./contracts";
import { createRedis } from "../redis";
import { env } from "../env";

const bullPrefix = () => `${env().REDIS_PREFIX}bull`;
const queues = new Map<QueueName, Queue>();

export function queue<Q extends QueueName>(name: Q): Queue<QueuePayload<Q>> {
  let q = queues.get(name);
  if (!q) {
    q = new Queue(QUEUES[name].name, { connection: createRedis(), prefix: bullPrefix() });
    queues.set(name, q);
  }
  return q as Queue<QueuePayload<Q>>;
}

/** Enqueue with a deterministic job id, so re-enqueueing the same work is a no-op while the job exists. */
export async function enqueue<Q extends QueueName>(name: Q, payload: QueuePayload<Q>, jobId: string): Promise<void> {
  const data = QUEUES[name].payload.parse(payload) as QueuePayload<Q>;
  // BullMQ's generic Queue typing is awkward around job names; the payload is validated above.
  await (queue(name) as unknown as Queue).add(name, data, { jobId, ...QUEUES[name].jobOptions });
}

/** `enqueue` for many jobs in one round trip (BullMQ addBulk), with the same validation and options. */
export async function enqueueMany<Q extends QueueName>(
  name: Q,
  jobs: readonly { payload: QueuePayload<Q>; jobId: string }[],
): Promise<void> {
  await (queue(name) as unknown as Queue).addBulk(
    jobs.map((j) => ({
      name,
      data: QUEUES[name].payload.parse(j.payload),
      opts: { jobId: j.jobId, ...QUEUES[name].jobOptions },
    })),
  );
}

export function consume<Q extends QueueName>(
  name: Q,
  handler: (payload: QueuePayload<Q>, job: Job) => Promise<void>,
  opts: Partial<WorkerOptions> = {},
): Worker {
  return new Worker(
    QUEUES[name].name,
    async (job) => handler(QUEUES[name].payload.parse(job.data) as QueuePayload<Q>, job),
    { connection: createRedis(), prefix: bullPrefix(), concurrency: 4, ...opts },
  );
}

export async function closeQueues(): Promise<void> {
  await Promise.all([...queues.values()].map((q) => q.close()));
  queues.clear();
}
