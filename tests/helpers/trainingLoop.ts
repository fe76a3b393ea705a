// The in-process pieces a real-loop test drives: a proxy on a temp data dir and an embedded Trainer on this
// file's own DATA_DIR, started in beforeAll and closed (with what the test adds) in afterAll.
import { promises as fs } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { closeQueues } from "../../server/platform/bus/queues";
import { startProxy, type ProxyServer } from "../../server/proxy/server";
import { Trainer, type TrainerOptions } from "../../server/training/loop";
import { tempDataDir } from "../integration/proxy/setup";
import { isolateDataDir } from "./isolate";

export interface TrainingLoop {
  dataDir: string;
  proxy: ProxyServer;
  trainer: Trainer;
  /** Closed in afterAll before the trainer and proxy (workers the test started: judges, episode workers). */
  onClose(close: () => Promise<void> | void): void;
}

/** Call at the top of a test file, after isolateRedis; the returned object is filled in beforeAll. */
export function useTrainingLoop(name: string, trainer: Omit<TrainerOptions, "dataDir"> = {}): TrainingLoop {
  const closers: (() => Promise<void> | void)[] = [];
  const loop = { onClose: (c) => void closers.push(c) } as TrainingLoop;
  beforeAll(async () => {
    loop.dataDir = await isolateDataDir(name);
    loop.proxy = await startProxy({
      port: 0,
      host: "127.0.0.1",
      dataDir: await tempDataDir(),
      metricsIntervalMs: 3_600_000,
      log: () => {},
    });
    loop.trainer = new Trainer({ ...trainer, dataDir: loop.dataDir });
  });
  afterAll(async () => {
    for (const c of closers) await c();
    loop.trainer?.close();
    await loop.proxy?.close();
    await closeQueues();
    if (loop.dataDir) await fs.rm(loop.dataDir, { recursive: true, force: true });
  });
  return loop;
}
