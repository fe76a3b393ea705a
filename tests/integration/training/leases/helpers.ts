// Fixtures for the batch lease tests: an external trainer's experiment config, and judged turns
// recorded in the proxy's compact form (system blob + per-turn message deltas), so the lease route's
// sample filler (server/training/samples.ts) turns them into Sample rows as it would in production.
import { spawn } from "node:child_process";
import path from "node:path";
import type { ExperimentConfigInput } from "../../../../server/config/experimentConfig";
import { db } from "../../../../server/platform/db/client";
import { makeKey } from "../../../helpers/fixtures";
import { makeJudgment } from "../../../helpers/judgments";
import { makeSession, makeTurn, storeBlob } from "../../../helpers/turns";

export const SLIME_EXPERIMENT: ExperimentConfigInput = {
  method: "grpo",
  policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30000/v1", model: "Qwen/Qwen3-4B" },
  trainer: { backend: "ray-slime", rayAddress: "http://127.0.0.1:8265" },
};

export const SYSTEM = { role: "system", content: "You are a helpful assistant." };
export const TOOLS = [
  { type: "function", function: { name: "search", parameters: { type: "object", properties: {} } } },
];

/**
 * A session of `n` main turns, each judged +1 (a grpo RL sample with reward 1). Turn i asks question i; its
 * delta is that question plus the previous answer, so reassembling turn i gives the whole conversation.
 */
export async function makeJudgedSession(
  experimentId: string,
  runId: string,
  n: number,
  opts: { score?: number; tokenIds?: (i: number) => number[] } = {},
) {
  const systemHash = await storeBlob("system", SYSTEM);
  const toolsHash = await storeBlob("tools", TOOLS);
  const session = await makeSession(experimentId, { turnCount: n });
  const turnIds: string[] = [];
  for (let i = 0; i < n; i++) {
    const delta =
      i === 0
        ? [{ role: "user", content: "question 0" }]
        : [
            { role: "assistant", content: `answer ${i - 1}` },
            { role: "user", content: `question ${i}` },
          ];
    const turnId = await makeTurn({
      experimentId,
      sessionId: session.id,
      runId,
      index: i,
      systemHash,
      toolsHash,
      messagesOffset: i === 0 ? 0 : 2 * i - 1,
      request: delta,
      content: `answer ${i}`,
      finishReason: "stop",
      tokenIds: opts.tokenIds?.(i) ?? [100 + i, 200 + i, 300 + i],
      logprobs: [-0.5, -0.25, -0.125],
      policyVersion: 0,
      next: { role: "user", content: `question ${i + 1}` },
    });
    await makeJudgment(turnId, {
      judgeVersion: "test-v1",
      judgeKind: "prm",
      model: "fake-prm",
      score: opts.score ?? 1,
      evalScore: opts.score ?? 1,
      dispatch: "rl",
    });
    turnIds.push(turnId);
  }
  return { sessionId: session.id, turnIds };
}

/** A write key bound to the experiment, as the supervisor issues to a trainer job. */
export const trainerKey = (experimentId: string) => makeKey(["write"], experimentId);

export interface MemberSpec {
  status?: "DONE" | "FAILED";
  outcome: number;
  /** One entry per step: its PRM score (null: the judge did not vote). */
  prm: (number | null)[];
}

/**
 * A finished GRPO group of `members` episodes of `taskId`, stored as workers/episodes leaves it: each
 * step a turn recorded under the episode's proxy session (`episode-<id>-1`, so the sample filler finds
 * it), the episode's steps pointing at them, and (with `ready`, the default) the group's advantages
 * written. Step k's prompt is the task, then the earlier commands and their outputs as tool messages.
 */
export async function makeEpisodeGroup(
  experimentId: string,
  runId: string,
  environmentId: string,
  taskId: string,
  members: MemberSpec[],
  opts: { groupKey?: string; ready?: boolean } = {},
) {
  const groupKey = opts.groupKey ?? `launch-${Math.random().toString(36).slice(2, 10)}:${taskId}`;
  const systemHash = await storeBlob("system", SYSTEM);
  const episodes = [];
  for (const [m, member] of members.entries()) {
    const status = member.status ?? "DONE";
    const episode = await db().episode.create({
      data: {
        experimentId,
        environmentId,
        taskId,
        groupKey,
        sampleIndex: m,
        status,
        outcome: status === "DONE" ? member.outcome : null,
        estimator: "step_wise",
        prm: member.prm.some((p) => p !== null),
        attempts: 1,
        finishedAt: new Date(),
      },
    });
    const session = await makeSession(experimentId, { externalId: `episode-${episode.id}-1`, done: true });
    const turnIds: string[] = [];
    for (const [i, prmScore] of member.prm.entries()) {
      const turnId = await makeTurn({
        experimentId,
        sessionId: session.id,
        runId,
        index: i,
        systemHash,
        messagesOffset: i === 0 ? 0 : 2 * i - 1,
        request:
          i === 0
            ? [{ role: "user", content: `task ${taskId}` }]
            : [
                { role: "assistant", content: `cmd ${m}.${i - 1}` },
                { role: "tool", content: `out ${m}.${i - 1}` },
              ],
        content: `cmd ${m}.${i}`,
        finishReason: "stop",
        tokenIds: [10 + i, 20 + i],
        logprobs: [-0.5, -0.25],
        policyVersion: 0,
        next: { role: "tool", content: `out ${m}.${i}` },
      });
      await db().episodeStep.create({
        data: {
          episodeId: episode.id,
          index: i,
          turnId,
          action: { tool: "bash", arguments: { command: `cmd ${m}.${i}` } },
          observation: { content: `out ${m}.${i}` },
          prmScore,
        },
      });
      turnIds.push(turnId);
    }
    episodes.push({ id: episode.id, turnIds });
  }
  if (opts.ready ?? true) await db().episode.updateMany({ where: { groupKey }, data: { advantagesAt: new Date() } });
  return { groupKey, episodes };
}

const ROOT = path.resolve(import.meta.dirname, "../../../..");

/**
 * Runs the slime integration's Python suite (`python3 -m unittest` over integrations/slime/tests, the files matching
 * `pattern`) with a minimal environment plus `env` (the job's: control-plane URL, trainer key, run id).
 */
export function runSlimePython(
  env: Record<string, string>,
  pattern = "test*.py",
): Promise<{ code: number | null; output: string }> {
  const childEnv: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    PYTHONDONTWRITEBYTECODE: "1",
    ...env,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(
      "python3",
      ["-m", "unittest", "discover", "-v", "-s", "integrations/slime/tests", "-p", pattern],
      {
        cwd: ROOT,
        // Next's typings make NODE_ENV a required key of ProcessEnv; the suite deliberately gets a minimal env.
        env: childEnv as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, output }));
  });
}
