// workers/simulate as a real child process against an in-process proxy (fake upstream): it mints its own key,
// holds simulated conversations for an experiment whose users are switched on (marked simulated, with their
// persona), reports stats and heartbeats, stops when the users are switched off, revokes its key on SIGTERM, and
// does nothing at all under SIMULATE=0.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { listHeartbeats } from "../../../server/platform/workerRuntime";
import { readStats, updateSimulation } from "../../../server/simulation/service";
import { SIMULATION_KEY_NAME } from "../../../server/simulation/key";
import { harness, type Harness } from "../proxy/setup";
import { ADMIN } from "../../helpers/fixtures";
import { waitFor } from "../../helpers/waitFor";

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

function startWorker(extraEnv: Record<string, string> = {}): {
  child: ChildProcess;
  exited: Promise<number | null>;
  since: number;
} {
  const since = Date.now();
  // As npm start runs it (workers/registry.ts): one node process with the tsx loader. The tsx CLI would SIGKILL the
  // worker ~30 ms after relaying SIGTERM, which a loaded machine's graceful shutdown can outlast.
  const child = spawn(process.execPath, ["--import", "tsx", path.resolve("workers/simulate/main.ts")], {
    env: { ...process.env, SIMULATE_PROXY_URL: `${h.proxy.url}/v1`, SIMULATE_POLL_MS: "200", ...extraEnv },
    stdio: ["ignore", "inherit", "inherit"],
  });
  return { child, since, exited: new Promise((resolve) => child.once("exit", (code) => resolve(code))) };
}

/** The worker's heartbeat, found by start time. */
const heartbeatOf = async (since: number) =>
  (await listHeartbeats()).find((b) => b.kind === "simulate" && b.startedAt >= since);

describe("workers/simulate", () => {
  it("simulates users for an enabled experiment, stops when switched off, and revokes its key on SIGTERM", async () => {
    const experimentId = h.experiment.id;
    await updateSimulation(ADMIN, {
      experimentId,
      enabled: true,
      personas: ["maya", "leo"],
      perMinute: 600,
      concurrency: 2,
      maxTurns: 2,
      seed: 3,
    });
    const { child, exited, since } = startWorker();
    try {
      const sessions = await waitFor("three simulated sessions", async () => {
        await h.proxy.writer.drain();
        const rows = await db().agentSession.findMany({ where: { experimentId, simulated: true } });
        return rows.length >= 3 ? rows : null;
      });
      expect(new Set(sessions.map((s) => s.persona)).size).toBeGreaterThan(0);
      for (const s of sessions) {
        expect(["maya", "leo"]).toContain(s.persona);
        expect(s.externalId).toMatch(new RegExp(`^sim-${s.persona}-`));
      }
      const turns = await db().turn.findMany({ where: { experimentId, sessionId: { in: sessions.map((s) => s.id) } } });
      expect(turns.every((t) => t.simulated)).toBe(true);
      // The fake upstream saw the official client's requests with the session headers.
      const seen = h.fake.requests.at(-1)!;
      expect(seen.body.model).toBeDefined();
      const beat = await waitFor("a heartbeat with stats", async () => {
        const b = await heartbeatOf(since);
        return b && (b.stats.sessions ?? 0) > 0 ? b : null;
      });
      expect(beat.activity).toMatch(/simulating users on 1 experiment/);
      const stats = await waitFor(
        "published stats",
        async () => (await readStats([experimentId])).get(experimentId) ?? null,
      );
      expect(stats.sessions).toBeGreaterThan(0);
      const key = await db().apiKey.findFirstOrThrow({
        where: { name: SIMULATION_KEY_NAME, revokedAt: null },
        orderBy: { createdAt: "desc" },
      });
      expect(key.scopes.sort()).toEqual(["identity", "proxy", "write"]);

      await updateSimulation(ADMIN, { experimentId, enabled: false });
      await waitFor(
        "the worker to go idle",
        async () => (await heartbeatOf(since))?.activity.startsWith("idle") ?? false,
      );
      await h.proxy.writer.drain();
      const after = await db().agentSession.count({ where: { experimentId, simulated: true } });
      // Idle now: a further settings poll later, nothing new was started.
      await waitFor("another heartbeat", async () => ((await heartbeatOf(since))?.at ?? 0) > beat.at + 2000);
      await h.proxy.writer.drain();
      expect(await db().agentSession.count({ where: { experimentId, simulated: true } })).toBe(after);

      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect((await db().apiKey.findUniqueOrThrow({ where: { id: key.id } })).revokedAt).not.toBeNull();
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  it("does nothing under SIMULATE=0", async () => {
    await updateSimulation(ADMIN, { experimentId: h.experiment.id, enabled: true });
    const keysBefore = await db().apiKey.count({ where: { name: SIMULATION_KEY_NAME } });
    const { child, exited, since } = startWorker({ SIMULATE: "0" });
    try {
      await waitFor("its heartbeat saying so", async () => (await heartbeatOf(since))?.activity === "off: SIMULATE=0");
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(await db().apiKey.count({ where: { name: SIMULATION_KEY_NAME } })).toBe(keysBefore);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await updateSimulation(ADMIN, { experimentId: h.experiment.id, enabled: false });
    }
  });
});
