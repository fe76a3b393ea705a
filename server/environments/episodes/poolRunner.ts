// Runs one terminal episode on a remote pool (terminal-rl's `pool_server`): the pool holds the task (by key,
// under its DATASET_DIR) and its verifier; we hold the agent loop, so the policy is called through the
// recording proxy (each step keeps its X-Turn-Id) with the tools the pool offers, and each tool call is the
// pool's `exec_tool`. A pool that loses the lease or dies mid-episode fails the episode with no outcome: the
// lease is never evaluated, so nothing is counted, let alone twice.
import { db, type Prisma } from "../../platform/db/client";
import { badRequest, errorText } from "../../platform/errors";
import type { RemotePoolProvider } from "../sandbox/remote/provider";
import { taskSpecSchema } from "../tasks/spec";
import type { AgentEndpoint } from "./runner";

export interface RunPoolEpisodeInput {
  environmentId: string;
  taskId: string;
  agent: AgentEndpoint;
  /** A `terminal` remote-pool provider (its pools' URLs). */
  pool: RemotePoolProvider;
  /** Upstream terminal-rl stops at 10 iterations (max_iteration). */
  maxSteps?: number;
  groupKey?: string;
  sampleIndex?: number;
}

interface ToolCall {
  id: string;
  function: { name: string; arguments: string };
}
interface AssistantMessage {
  content?: string | null;
  tool_calls?: ToolCall[] | null;
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Prisma.InputJsonValue;

async function callPolicy(agent: AgentEndpoint, sessionId: string, messages: unknown[], tools: unknown[]) {
  const res = await fetch(`${agent.baseUrl.replace(/\/$/, "")}/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${agent.apiKey}`,
      "x-session-id": sessionId,
      "x-turn-type": "main",
    },
    body: JSON.stringify({ model: agent.model, messages, tools }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`the policy answered ${res.status}: ${text.slice(0, 300)}`);
  const message = (JSON.parse(text) as { choices?: { message?: AssistantMessage }[] }).choices?.[0]?.message;
  if (!message) throw new Error("the policy's answer has no choices[0].message");
  return { message, turnId: res.headers.get("x-turn-id") };
}

export async function runPoolEpisode(input: RunPoolEpisodeInput) {
  if (input.pool.protocol !== "terminal")
    throw badRequest(`a ${input.pool.protocol} pool needs its own agent loop: this runner drives terminal pools`);
  const maxSteps = input.maxSteps ?? 10;
  const environment = await db().environment.findUniqueOrThrow({ where: { id: input.environmentId } });
  const task = await db().task.findUniqueOrThrow({ where: { id: input.taskId } });
  const spec = taskSpecSchema.parse(task.spec);
  if (spec.kind !== "terminal") throw badRequest(`Task ${task.key} is a ${spec.kind} task: pools run terminal tasks`);

  const episode = await db().episode.create({
    data: {
      experimentId: environment.experimentId,
      environmentId: environment.id,
      taskId: task.id,
      groupKey: input.groupKey,
      sampleIndex: input.sampleIndex,
      status: "RUNNING",
      startedAt: new Date(),
    },
  });
  let leaseId: string | null = null;
  try {
    const lease = await input.pool.allocate({
      // The pool finds the task under its DATASET_DIR by `task_path` (the task's key unless its metadata says).
      task: {
        key: spec.key,
        instruction: spec.instruction,
        meta: { task_path: (spec.metadata.task_path as string | undefined) ?? spec.key },
      },
      episodeId: episode.id,
      sampleIndex: input.sampleIndex,
    });
    leaseId = lease.id;
    await db().episode.update({
      where: { id: episode.id },
      data: { leaseId: `${lease.pool}#${lease.poolLeaseId}`, leaseProvider: input.pool.name, sessionId: episode.id },
    });
    const reset = await input.pool.reset(lease.id);

    const messages: unknown[] = [{ role: "user", content: reset.instruction }];
    let finished = false;
    for (let step = 0; step < maxSteps; step++) {
      const { message, turnId } = await callPolicy(input.agent, episode.id, messages, reset.tools);
      const calls = message.tool_calls ?? [];
      messages.push({
        role: "assistant",
        content: message.content ?? "",
        ...(calls.length ? { tool_calls: calls } : {}),
      });
      if (calls.length === 0) {
        finished = true;
        break;
      }
      const results = [];
      for (const call of calls) {
        let args: Record<string, unknown> = {};
        let content: string;
        try {
          args = JSON.parse(call.function.arguments) as Record<string, unknown>;
          const obs = await input.pool.step(lease.id, { kind: "tool", name: call.function.name, arguments: args });
          content = obs.text;
        } catch (e) {
          if (!(e instanceof SyntaxError)) throw e;
          content = "error: arguments must be a JSON object";
        }
        messages.push({ role: "tool", tool_call_id: call.id, content });
        results.push({ toolCallId: call.id, content });
      }
      await db().episodeStep.create({
        data: {
          episodeId: episode.id,
          index: step,
          turnId,
          action: json({
            content: message.content ?? "",
            toolCalls: calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
          }),
          observation: json({ results }),
        },
      });
    }

    const verdict = await input.pool.evaluate(lease.id);
    return await db().episode.update({
      where: { id: episode.id },
      data: {
        status: "DONE",
        outcome: verdict.reward,
        outcomeDetail: json({ pool: lease.pool, ...verdict.detail }),
        truncation: finished ? null : "step_budget",
        finishedAt: new Date(),
      },
      include: { steps: { orderBy: { index: "asc" } } },
    });
  } catch (e) {
    await db().episode.update({
      where: { id: episode.id },
      data: { status: "FAILED", error: errorText(e).slice(0, 2000), finishedAt: new Date() },
    });
    throw e;
  } finally {
    if (leaseId) await input.pool.close(leaseId);
  }
}
