// A scripted agent — the fake OpenAI upstream (built from the SDK's types) emitting fixed tool calls — solves
// a committed Harbor terminal task end to end through the real recording proxy: its bash calls run in the
// bubblewrap sandbox, their output comes back as tool messages, every step keeps its recorded turn, and the
// task's verifier passes. The same task with a wrong command fails the verifier; a step budget truncates.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { runEpisode } from "../../../server/environments/episodes/runner";
import { sandboxProvider } from "../../../server/environments/sandbox/registry";
import { EnvironmentCreateInput } from "../../../server/environments/schemas";
import { createEnvironment, getEnvironment, writeTaskSetVersion } from "../../../server/environments/service";
import { parseTasks } from "../../../server/environments/tasks/import";
import { isolateRedis } from "../../helpers/isolate";
import { ADMIN } from "../../helpers/fixtures";
import { waitFor } from "../../helpers/waitFor";
import { harness, type Harness } from "../proxy/setup";

isolateRedis("env-episodes");

const availability = await sandboxProvider("local-bwrap").available();
const bash = (command: string) => ({ toolCalls: [{ name: "bash", arguments: JSON.stringify({ command }) }] });
const RIGHT = `awk '$2 == "ERROR"' /app/data/service.log | wc -l > /app/answer.txt`;
// Counts every line mentioning ERROR, the WARN and DEBUG lines too: a plausible, wrong answer.
const WRONG = "grep -c ERROR /app/data/service.log > /app/answer.txt";

describe.skipIf(!availability.ok)(
  `terminal episodes through the proxy${availability.ok ? "" : ` (skipped: ${availability.reason})`}`,
  () => {
    let h: Harness;
    let environmentId: string;
    let taskId: string;
    beforeAll(async () => {
      h = await harness();
      const env = await createEnvironment(
        ADMIN,
        EnvironmentCreateInput.parse({ experiment: h.experiment.id, name: "terminal", limits: { wallSeconds: 30 } }),
      );
      environmentId = env.id;
      const tasks = parseTasks({ format: "harbor", folder: "examples/environments/terminal" });
      const set = await db().$transaction((tx) =>
        writeTaskSetVersion(tx, ADMIN, {
          experimentId: h.experiment.id,
          name: "examples",
          format: "harbor",
          splitSeed: 0,
          heldOutFraction: 0,
          tasks,
        }),
      );
      taskId = (
        await db().task.findFirstOrThrow({ where: { setVersionId: set.versionId, key: "examples/count-errors" } })
      ).id;
    });
    afterAll(() => h?.close());

    const agent = () => ({ baseUrl: `${h.proxy.url}/v1`, apiKey: h.key, model: h.fake.model });

    it("solves the task: tool calls run in the sandbox, observations go back as tool messages, the verifier passes", async () => {
      h.fake.reset();
      h.fake.enqueue(bash(RIGHT), bash("cat /app/answer.txt"), { content: "There are 3 errors." });
      const ep = await runEpisode({ environmentId, taskId, agent: agent() });
      expect(ep).toMatchObject({ status: "DONE", outcome: 1, truncation: null, error: null });
      // Two tool calls and the final answer: each a step with its recorded turn.
      expect(ep.steps).toHaveLength(3);
      const second = ep.steps[1].observation as { results: { content: string; exitCode: number }[] };
      expect(second.results[0]).toMatchObject({ exitCode: 0 });
      expect(second.results[0].content).toContain("stdout:\n3\n");
      // The upstream saw the sandbox's output as the tool message answering its call.
      const third = h.fake.requests[2].body.messages as { role: string; content: string; tool_call_id?: string }[];
      const last = third[third.length - 1];
      expect(last.role).toBe("tool");
      expect(last.content).toContain("stdout:\n3\n");
      const secondCall = (h.fake.requests[1].body.messages as { role: string; tool_calls?: { id: string }[] }[]).find(
        (m) => m.role === "assistant",
      );
      expect(secondCall?.tool_calls?.[0]).toBeDefined();
      // Every step is a recorded turn of the episode's session.
      const turnIds = ep.steps.map((s) => s.turnId);
      expect(turnIds.every((t) => typeof t === "string")).toBe(true);
      const turns = await waitFor("the episode's turns", async () => {
        const rows = await db().turn.findMany({ where: { id: { in: turnIds as string[] } } });
        return rows.length === 3 ? rows : null;
      });
      expect(new Set(turns.map((t) => t.experimentId))).toEqual(new Set([h.experiment.id]));
      expect(ep.leaseId).toMatch(/^sbx-/);
      expect(
        sandboxProvider("local-bwrap")
          .list()
          .map((l) => l.id),
      ).not.toContain(ep.leaseId);
    });

    it("fails the verifier with a wrong command", async () => {
      h.fake.reset();
      h.fake.enqueue(bash(WRONG), { content: "Done." });
      const ep = await runEpisode({ environmentId, taskId, agent: agent() });
      expect(ep).toMatchObject({ status: "DONE", outcome: 0, truncation: null });
      expect(ep.steps).toHaveLength(2);
    });

    it("reports the environment's recent health: failures, truncation, command latency, time on tools", async () => {
      const env = await getEnvironment(ADMIN, { id: environmentId });
      // The three episodes above: one truncated run comes after this test, so two ended, none truncated.
      expect(env.recent).toMatchObject({ episodes: 2, failed: 0, truncationRatio: 0 });
      const durations = (
        await db().episodeStep.findMany({ where: { episode: { environmentId } }, select: { observation: true } })
      )
        .flatMap((s) => (s.observation as { results: { durationMs?: number }[] }).results)
        .flatMap((r) => (typeof r.durationMs === "number" ? [r.durationMs] : []))
        .sort((a, b) => a - b);
      expect(durations).toHaveLength(3);
      expect(env.recent.execP50Ms).toBe(durations[1]);
      expect(env.recent.execP95Ms).toBe(durations[2]);
      expect(env.recent.toolWaitShare).toBeGreaterThan(0);
      expect(env.recent.toolWaitShare).toBeLessThanOrEqual(1);
      // How long the sandbox took to allocate each episode's lease and to run its verifier, per episode; the page's
      // p50 / p95 are theirs (nearest rank over two: the smaller, then the larger).
      const timings = await db().episode.findMany({
        where: { environmentId, status: { in: ["DONE", "FAILED"] } },
        select: { allocateMs: true, evaluateMs: true },
      });
      for (const key of ["allocateMs", "evaluateMs"] as const) {
        const ms = timings.map((t) => t[key]);
        expect(ms.every((x) => Number.isInteger(x) && x! >= 0)).toBe(true);
        const [lo, hi] = (ms as number[]).sort((a, b) => a - b);
        const stat = key === "allocateMs" ? "allocate" : "evaluate";
        expect([env.recent[`${stat}P50Ms`], env.recent[`${stat}P95Ms`]]).toEqual([lo, hi]);
      }
      // The verifier runs a command in the sandbox: it takes time. (An allocate may round to 0 ms.)
      expect(env.recent.evaluateP95Ms).toBeGreaterThan(0);
      // Leases held now: the ended episodes closed theirs; a running one that holds a lease counts.
      expect(env.activeLeases).toBe(0);
      const running = await db().episode.create({
        data: { experimentId: h.experiment.id, environmentId, taskId, status: "RUNNING", leaseId: "sbx-held" },
      });
      try {
        expect((await getEnvironment(ADMIN, { id: environmentId })).activeLeases).toBe(1);
      } finally {
        await db().episode.delete({ where: { id: running.id } });
      }
    });

    it("stops at the step budget and marks the episode truncated", async () => {
      h.fake.reset();
      h.fake.enqueue(bash("true"), bash("true"), bash(RIGHT));
      const ep = await runEpisode({ environmentId, taskId, agent: agent(), maxSteps: 2 });
      expect(ep).toMatchObject({ status: "DONE", outcome: 0, truncation: "step_budget" });
      expect(ep.steps.map((s) => s.index)).toEqual([0, 1]);
    });
  },
);
