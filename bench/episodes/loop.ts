// The tool-call demo's training loop, shared by bench/episodes/run.ts and the learning test
// (tests/integration/environments/learning.test.ts): the demo's environment and task set (server/environments/
// demo.ts) in a fresh experiment on an embedded checkpoint; each round launches GRPO groups on training tasks
// through the real recording proxy and episode worker, waits for the groups' advantages and their recorded
// turns, lets the embedded trainer step on every full batch, and waits until the proxy serves the new version.
// Held-out pass@1 (launchSummary over the held-out split) is measured at the base and after chosen rounds; the
// held-out episodes never train (labels/episodes.ts excludes held-out tasks).
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { Principal } from "../../server/access/principal";
import { createApiKey, revokeApiKey } from "../../server/apiKeys/service";
import { ExperimentConfigSchema } from "../../server/config/experimentConfig";
import { seedDemoEnvironments } from "../../server/environments/demo";
import { startEpisodeWorker } from "../../server/environments/episodes/worker";
import { EpisodeLaunchInput, LaunchSummaryInput } from "../../server/environments/schemas";
import { launchEpisodes, launchSummary } from "../../server/environments/service";
import { db, type Prisma } from "../../server/platform/db/client";
import { startProxy } from "../../server/proxy/server";
import { Trainer } from "../../server/training/loop";

export interface ToolCallTrainingOptions {
  checkpoint: string;
  lr: number;
  /** Rounds of training launches (each: `tasksPerRound` train tasks × `n` episodes). */
  rounds: number;
  tasksPerRound: number;
  n: number;
  batchSize: number;
  /** Episodes per held-out task at each evaluation. */
  evalN: number;
  /** Evaluate after these rounds (0 = the base, before any training). */
  evalAfter: readonly number[];
  /** Which training tasks each round takes (rotating through the split from this offset). */
  seed: number;
  principal: Principal;
  concurrency?: number;
  log?: (line: string) => void;
  timeoutMs?: number;
}

export interface HeldOutPoint {
  round: number;
  /** optimizer steps taken so far (policy versions trained) */
  steps: number;
  passAt1: number;
  low: number;
  high: number;
  /** policy versions that served the held-out episodes */
  versions: number[];
}

export interface ToolCallTrainingResult {
  experimentId: string;
  heldOut: HeldOutPoint[];
  /** mean outcome (+1/−1) of each round's training episodes */
  trainOutcome: number[];
}

async function until<T>(what: string, deadline: number, fn: () => Promise<T | null>): Promise<T> {
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function runToolCallTraining(o: ToolCallTrainingOptions): Promise<ToolCallTrainingResult> {
  const log = o.log ?? (() => {});
  const deadline = Date.now() + (o.timeoutMs ?? 3_600_000);
  const config = ExperimentConfigSchema.parse({
    method: "grpo",
    policy: { kind: "embedded", checkpoint: path.resolve(o.checkpoint) },
    // The embedded backend's defaults otherwise (advantage whitening included: episode steps' group-normalised
    // advantages are left out of it, engine/losses.ts batchAdvantages).
    hyper: { lr: o.lr, batchSize: o.batchSize, keepCheckpoints: 2 },
  });
  const slug = `toolcall-${randomBytes(4).toString("hex")}`;
  const e = await db().experiment.create({
    data: { slug, name: `tool-call training (lr ${o.lr})`, config: config as unknown as Prisma.InputJsonValue },
  });
  const run = await db().run.create({
    data: {
      experimentId: e.id,
      number: 1,
      config: config as unknown as Prisma.InputJsonValue,
      trainerBackend: "embedded",
      status: "RUNNING",
      startedAt: new Date(),
    },
  });
  await seedDemoEnvironments(o.principal, e.id);
  const environment = await db().environment.findFirstOrThrow({ where: { experimentId: e.id, name: "toolcall" } });
  const taskSet = await db().taskSet.findFirstOrThrow({ where: { experimentId: e.id, name: "arithmetic" } });
  const trainKeys = (
    await db().task.findMany({
      where: { setVersion: { setId: taskSet.id }, split: "train" },
      orderBy: { index: "asc" },
      select: { key: true },
    })
  ).map((t) => t.key);

  const key = await createApiKey(null, { name: `tool-call training ${slug}`, scopes: ["proxy"], experimentId: e.id });
  const proxy = await startProxy({ port: 0, host: "127.0.0.1", metricsIntervalMs: 3_600_000, log: () => {} });
  const worker = startEpisodeWorker({
    agentFor: async () => ({ baseUrl: `${proxy.url}/v1`, apiKey: key.key, model: slug }),
    concurrency: o.concurrency ?? 4,
    perEnvironment: o.concurrency ?? 4,
    staleMs: 3_600_000,
    maxAttempts: 2,
    sweepMs: 3_600_000,
    experimentIds: [e.id],
  });
  const trainer = new Trainer({ fillEveryMs: 0 });
  let steps = 0;

  /** Launches and waits for every episode of a launch to end; returns its id. */
  const launchAndWait = async (input: Record<string, unknown>, needAdvantages: boolean) => {
    const { launchId } = await launchEpisodes(
      o.principal,
      EpisodeLaunchInput.parse({ environmentId: environment.id, taskSetId: taskSet.id, maxSteps: 2, ...input }),
    );
    const episodes = await until(`launch ${launchId}`, deadline, async () => {
      const rows = await db().episode.findMany({
        where: { experimentId: e.id, groupKey: { startsWith: `${launchId}:` } },
        include: { steps: { select: { turnId: true } } },
      });
      const ended = rows.every((r) => r.status === "DONE" || r.status === "FAILED");
      return ended && (!needAdvantages || rows.every((r) => r.advantagesAt !== null)) ? rows : null;
    });
    // The proxy records turns off the request path: a batch must not be cut before they are in.
    const turnIds = episodes.flatMap((ep) => ep.steps.flatMap((s) => (s.turnId ? [s.turnId] : [])));
    await until("the recorded turns", deadline, async () =>
      (await db().turn.count({ where: { id: { in: turnIds } } })) === turnIds.length ? true : null,
    );
    return { launchId, episodes };
  };

  const heldOut: HeldOutPoint[] = [];
  const evaluate = async (round: number) => {
    const { launchId } = await launchAndWait({ split: "heldout", n: o.evalN }, false);
    const s = await launchSummary(o.principal, LaunchSummaryInput.parse({ experiment: e.id, launchId, k: 1 }));
    const point = {
      round,
      steps,
      passAt1: s.passAt1.mean ?? 0,
      low: s.passAt1.low ?? 0,
      high: s.passAt1.high ?? 0,
      versions: s.policyVersions,
    };
    heldOut.push(point);
    log(
      `round ${round} (${steps} steps): held-out pass@1 ${point.passAt1.toFixed(3)} [${point.low.toFixed(3)}, ${point.high.toFixed(3)}] v${point.versions.join(",")}`,
    );
  };

  const trainOutcome: number[] = [];
  try {
    if (o.evalAfter.includes(0)) await evaluate(0);
    for (let round = 1; round <= o.rounds; round++) {
      const start = ((o.seed + round - 1) * o.tasksPerRound) % trainKeys.length;
      const taskKeys = Array.from({ length: o.tasksPerRound }, (_, i) => trainKeys[(start + i) % trainKeys.length]);
      const { episodes } = await launchAndWait({ split: "train", taskKeys, n: o.n }, true);
      const outcomes = episodes.map((ep) => ep.outcome ?? -1);
      trainOutcome.push(outcomes.reduce((a, b) => a + b, 0) / outcomes.length);
      for (;;) {
        const { step } = await trainer.tick(run.id);
        if (!step) break;
        steps++;
      }
      const active = await db().policyVersion.findFirst({
        where: { experimentId: e.id, status: "ACTIVE" },
        orderBy: { version: "desc" },
        select: { version: true },
      });
      const want = active?.version ?? 0;
      await until(`the proxy serving v${want}`, deadline, async () =>
        (proxy.experiments.get(e.id)?.policyVersion ?? -1) >= want ? true : null,
      );
      log(`round ${round}: train outcome ${trainOutcome.at(-1)!.toFixed(2)}, ${steps} steps`);
      if (o.evalAfter.includes(round)) await evaluate(round);
    }
  } finally {
    await worker.close();
    trainer.close();
    await proxy.close();
    await revokeApiKey(o.principal, key.id).catch(() => null);
  }
  return { experimentId: e.id, heldOut, trainOutcome };
}
