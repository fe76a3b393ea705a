// The promotion gate of an environment experiment on held-out pass@1: each version runs k real episodes of every
// held-out task (the real runner, the real calc tool and answer scoring, rows in Postgres), its policy the
// version's own weights through the upstream factory (here a scripted stand-in keyed by the checkpoint path, so
// the versions' skills are known: v1 solves with the tool, v2 guesses). A version whose pass rate rose is
// promoted, one whose pass rate dropped is held back with the reason and both intervals; the per-version pass
// rates reach REST and tRPC through their output schemas. The scheduler queues the held-out evaluation, and a
// re-evaluation request queues it again.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createTRPCClient, httpLink } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { queue } from "../../../server/platform/bus/queues";
import type { AppRouter } from "../../../server/gateway/trpc/root";
import { EnvironmentCreateInput, TaskSetImportInput } from "../../../server/environments/schemas";
import { createEnvironment, importTaskSet } from "../../../server/environments/service";
import { claimEpisode } from "../../../server/environments/episodes/worker";
import { evaluateVersionOnTasks } from "../../../server/evaluation/episodes";
import { versionPassRates } from "../../../server/evaluation/taskRates";
import { evaluateJobId } from "../../../server/evaluation/config";
import { scheduleEvaluations } from "../../../server/evaluation/schedule";
import { commitStep } from "../../../server/training/commit";
import type { Upstream, UpstreamRequest } from "../../../server/proxy/upstreams/types";
import type { UpstreamContext } from "../../../server/proxy/upstreams/factory";
import { startApiServer } from "../../helpers/apiServer";
import { ADMIN, api, makeExperiment, makeKey, makeRun } from "../../helpers/fixtures";
import { isolateRedis } from "../../helpers/isolate";

isolateRedis("eval-task-gate");

const TASKS = Array.from({ length: 8 }, (_, i) => ({
  id: `mul-${i}`,
  prompt: `What is ${13 + i} * ${27 + 2 * i}? Use the calc tool, then give the final answer as \\boxed{number}.`,
  answer: String((13 + i) * (27 + 2 * i)),
  tools: ["calc"],
}));

type Msg = { role: string; content?: string | null };

/**
 * A policy whose skill is its checkpoint: "solver" calls calc on the question's product and boxes the tool's
 * answer; "guesser" boxes 0 at once. Every request's seed is kept, per checkpoint.
 */
function scriptedFactory(seeds: Map<string, number[]>) {
  return (ctx: UpstreamContext): Upstream => {
    // version 0 answers with the config's base: a guesser
    const skill = ctx.checkpointPath ? path.basename(ctx.checkpointPath) : "guesser";
    const reply = (message: Record<string, unknown>, finish: string) => ({
      kind: "json" as const,
      body: { choices: [{ index: 0, message, finish_reason: finish }], usage: { completion_tokens: 5 } },
    });
    return {
      kind: "embedded",
      model: "scripted",
      async send(req: UpstreamRequest) {
        seeds.set(skill, [...(seeds.get(skill) ?? []), req.body.seed as number]);
        const messages = req.body.messages as Msg[];
        const last = messages[messages.length - 1]!;
        if (skill !== "solver") return reply({ role: "assistant", content: "\\boxed{0}" }, "stop");
        if (last.role === "tool") return reply({ role: "assistant", content: `\\boxed{${last.content}}` }, "stop");
        const expression = /What is (.+?)\?/.exec(last.content ?? "")![1]!;
        return reply(
          {
            role: "assistant",
            content: "",
            tool_calls: [
              { id: "c1", type: "function", function: { name: "calc", arguments: JSON.stringify({ expression }) } },
            ],
          },
          "tool_calls",
        );
      },
      async close() {},
    };
  };
}

/** The "toolcall" environment and the "products" task set (half held out) that `evaluation.tasks` names. */
async function seedProducts(experimentId: string, tasks: typeof TASKS) {
  await createEnvironment(
    ADMIN,
    EnvironmentCreateInput.parse({ experiment: experimentId, name: "toolcall", tools: ["calc"] }),
  );
  await importTaskSet(
    ADMIN,
    TaskSetImportInput.parse({
      experiment: experimentId,
      name: "products",
      format: "jsonl",
      text: tasks.map((t) => JSON.stringify(t)).join("\n"),
      heldOutFraction: 0.5,
    }),
  );
  return db().taskSetVersion.findFirstOrThrow({ where: { set: { experimentId } } });
}

describe("held-out pass@1 gate (environment experiments)", () => {
  let server: Awaited<ReturnType<typeof startApiServer>>;
  beforeAll(async () => {
    server = await startApiServer();
  });
  afterAll(async () => {
    await server.close();
    await db().$disconnect();
  });

  it("promotes a version whose held-out pass rate rose, holds back one whose rate dropped", async () => {
    const K = 3;
    const e = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: "models/toolcall" },
      serving: { promotion: "gated", gate: { tolerance: 0.05 } },
      evaluation: {
        enabled: true,
        seed: 7,
        tasks: { taskSet: "products", environment: "toolcall", k: K, maxSteps: 3 },
      },
    });
    const runId = (await makeRun(e.id)).id;
    const tsv = await seedProducts(e.id, TASKS);
    const heldOut = await db().task.count({ where: { setVersionId: tsv.id, split: "heldout" } });
    expect(heldOut).toBeGreaterThan(1);

    // The scheduler queues the base's held-out evaluation as a `tasks` job on the task set version.
    const scheduled = await scheduleEvaluations({ experimentIds: [e.id] });
    expect(scheduled.queued).toContainEqual({ experimentId: e.id, version: 0 });
    const job = await queue("evaluate").getJob(evaluateJobId(e.id, 0, tsv.id));
    expect(job?.data).toEqual({ experimentId: e.id, version: 0, setVersionId: tsv.id, target: "tasks" });
    await job!.remove();

    const seeds = new Map<string, number[]>();
    const deps = { upstreamFactory: scriptedFactory(seeds) };
    // Promotion serves a checkpoint folder that exists; the scripted policy reads its skill from the name.
    const dir = mkdtempSync(path.join(os.tmpdir(), "task-gate-"));
    const checkpoint = (skill: string) => {
      mkdirSync(path.join(dir, skill));
      writeFileSync(path.join(dir, skill, "meta.json"), "{}");
      return path.join(dir, skill);
    };
    const commit = (version: number, parentVersion: number, checkpointPath: string) =>
      commitStep({
        runId,
        experimentId: e.id,
        step: version,
        version,
        parentVersion,
        checkpointPath,
        checkpointSha: "test",
        bytes: 0,
        decisions: new Map(),
        record: { values: {}, trace: [], parentVersion },
        durationMs: 1,
        points: [],
      });

    const base = await evaluateVersionOnTasks(e.id, 0, tsv.id, deps);
    expect(base).toMatchObject({ version: 0, episodes: heldOut * K, pending: 0, failed: 0 });
    expect(base!.passAt1).toMatchObject({ n: heldOut * K, c: 0, mean: 0, low: 0 });

    // v1 solves every task: pass@1 rose from 0 to 1, it is promoted.
    expect((await commit(1, 0, checkpoint("solver"))).status).toBe("CANDIDATE");
    const v1 = await evaluateVersionOnTasks(e.id, 1, tsv.id, deps);
    expect(v1!.passAt1).toMatchObject({ c: heldOut * K, mean: 1, high: 1 });
    expect(v1!.passAt1.low!).toBeGreaterThan(0.5);
    expect(v1!.passAtK).toMatchObject({ k: K, tasks: heldOut, mean: 1 });
    const active = async () =>
      (await db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, status: "ACTIVE" } })).version;
    expect(await active()).toBe(1);
    const promoted = await db().auditLog.findFirstOrThrow({
      where: { resourceId: e.id, action: "policyVersion.gatePromote" },
    });
    expect(promoted.after).toMatchObject({
      activeVersion: 1,
      reason: expect.stringMatching(
        /^held-out pass@1 1\.000 \[0\.\d{3}, 1\.000\] ≥ served v0's 0\.000 \[0\.000, 0\.\d{3}\] − tolerance 0\.050$/,
      ),
    });

    // v2 guesses again: its pass rate dropped below the served v1's, it is held back and v1 stays.
    expect((await commit(2, 1, checkpoint("guesser"))).status).toBe("CANDIDATE");
    const v2 = await evaluateVersionOnTasks(e.id, 2, tsv.id, deps);
    expect(v2!.passAt1.mean).toBe(0);
    expect(await active()).toBe(1);
    const held = await db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, version: 2 } });
    expect(held.status).toBe("CANDIDATE");
    expect(held.gateReason).toMatch(
      /^held-out pass@1 0\.000 \[0\.000, 0\.\d{3}\] < served v1's 1\.000 \[0\.\d{3}, 1\.000\] − tolerance 0\.050$/,
    );

    // The episodes are pinned to their version, outside any GRPO group, their steps not recorded turns; the
    // episode worker never claims one; every version drew the same seeds.
    const pinned = await db().episode.findMany({
      where: { experimentId: e.id, policyVersion: 1 },
      include: { steps: true, task: { select: { split: true } } },
    });
    expect(pinned).toHaveLength(heldOut * K);
    expect(
      pinned.every((p) => p.groupKey === null && p.sessionId === null && p.task.split === "heldout" && p.outcome === 1),
    ).toBe(true);
    expect(pinned.flatMap((p) => p.steps).every((s) => s.turnId === null)).toBe(true);
    expect(pinned[0]!.steps.map((s) => JSON.parse(JSON.stringify(s.action)).toolCalls.length)).toEqual([1, 0]);
    expect(await claimEpisode(pinned[0]!.id)).toBe(false);
    const firstSteps = (skill: string) => new Set(seeds.get(skill)!.filter((s) => s % 64 === 0));
    expect(firstSteps("solver")).toEqual(firstSteps("guesser"));
    expect(firstSteps("solver").size).toBe(heldOut * K);

    // Evaluating a version again reruns nothing: its ended episodes stay.
    const calls = seeds.get("solver")!.length;
    await evaluateVersionOnTasks(e.id, 1, tsv.id, deps);
    expect(seeds.get("solver")!.length).toBe(calls);

    // REST and tRPC answer through their output schemas, per version with status and gate reason.
    const key = await makeKey(["read"], e.id);
    const rest = await api(server.url, { bearer: key })(
      "GET",
      `/api/v1/evaluations/task-pass-rates?experimentId=${e.id}`,
    );
    expect(rest.status).toBe(200);
    const trpc = createTRPCClient<AppRouter>({
      links: [httpLink({ url: `${server.url}/api/trpc`, headers: { authorization: `Bearer ${key}` } })],
    });
    const viaTrpc = await trpc.evaluation.taskPassRates.query({ experimentId: e.id });
    expect(JSON.parse(JSON.stringify(viaTrpc))).toEqual(rest.body);
    expect(viaTrpc).toMatchObject({
      configured: true,
      k: K,
      heldOutTasks: heldOut,
      taskSet: { name: "products", version: 1 },
      environment: { name: "toolcall" },
    });
    expect(viaTrpc.versions.map((v) => [v.version, v.status, v.passAt1.mean])).toEqual([
      [0, "BASE", 0],
      [1, "ACTIVE", 1],
      [2, "CANDIDATE", 0],
    ]);
    expect(viaTrpc.versions[2]!.gateReason).toBe(held.gateReason);
    expect(await versionPassRates(e.id, tsv.id, K)).toHaveLength(3);

    // Re-evaluating a version (the page's button, POST /evaluations) drops its held-out episodes and queues them again.
    const writer = api(server.url, { bearer: await makeKey(["read", "write"], e.id) });
    const again = await writer("POST", "/api/v1/evaluations", { experimentId: e.id, version: 2 });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ queued: true, version: 2, setVersionId: tsv.id });
    expect(await db().episode.count({ where: { experimentId: e.id, policyVersion: 2 } })).toBe(0);
    const requeued = (await queue("evaluate").getJobs(["waiting", "delayed", "prioritized"])).filter(
      (j) => j.data.experimentId === e.id,
    );
    expect(requeued.map((j) => j.data)).toEqual([
      { experimentId: e.id, version: 2, setVersionId: tsv.id, target: "tasks" },
    ]);
  }, 120_000);
  it("runs a version's held-out episodes on the real embedded engine with that version's weights", async () => {
    const e = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: "models/toolcall" },
      evaluation: {
        enabled: true,
        maxTokens: 48,
        tasks: { taskSet: "products", environment: "toolcall", k: 1, maxSteps: 2 },
      },
    });
    const tsv = await seedProducts(e.id, TASKS.slice(0, 4));
    const rates = await evaluateVersionOnTasks(e.id, 0, tsv.id);
    const episodes = await db().episode.findMany({ where: { experimentId: e.id }, include: { steps: true } });
    // Every episode ended with an outcome (a reply of the real upstream, tool calls parsed or a final answer).
    expect(episodes.length).toBeGreaterThan(0);
    expect(episodes.map((x) => [x.status, x.error])).toEqual(episodes.map(() => ["DONE", null]));
    expect(episodes.every((x) => x.steps.length >= 1 && (x.outcome === 1 || x.outcome === -1))).toBe(true);
    expect(rates).toMatchObject({ version: 0, pending: 0, failed: 0, passAt1: { n: episodes.length } });
  }, 300_000);
});
