// Runs one terminal episode: the task's workspace in a fresh sandbox lease, the agent's policy called through
// the recording proxy (so every step is a recorded turn: the X-Turn-Id the proxy answers with is kept on the
// step), each `bash` tool call executed in the sandbox and fed back as a tool message, a step budget, and the
// task's verifier for the outcome. The lease is closed whatever happens; the episode row says how it ended.
import { db, type Prisma } from "../../platform/db/client";
import { badRequest, errorText } from "../../platform/errors";
import { sandboxLimitsSchema } from "../sandbox/limits";
import type { ExecResult, SandboxProvider } from "../sandbox/provider";
import { sandboxProvider, type ProviderName } from "../sandbox/registry";
import { containerImage } from "../tasks/image";
import { taskSpecSchema } from "../tasks/spec";

export interface AgentEndpoint {
  /** The proxy's OpenAI base URL, e.g. http://127.0.0.1:30000/v1 */
  baseUrl: string;
  /** A proxy-scoped API key of the experiment. */
  apiKey: string;
  model: string;
}

export interface RunEpisodeInput {
  environmentId: string;
  taskId: string;
  agent: AgentEndpoint;
  /** Upstream terminal-rl stops at 10 iterations (max_iteration). */
  maxSteps?: number;
  groupKey?: string;
  sampleIndex?: number;
  provider?: SandboxProvider;
}

export const BASH_TOOL = {
  type: "function",
  function: {
    name: "bash",
    description: "Run a shell command in the task's workspace (/app). Returns its exit code and output.",
    parameters: {
      type: "object",
      properties: { command: { type: "string", description: "The command, run with bash -c" } },
      required: ["command"],
    },
  },
} as const;

const SYSTEM =
  "You are a terminal agent. Solve the task by calling the bash tool; the workspace is /app. " +
  "When the task is done, answer without a tool call.";

interface ToolCall {
  id: string;
  type?: string;
  function: { name: string; arguments: string };
}
interface AssistantMessage {
  content?: string | null;
  tool_calls?: ToolCall[] | null;
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Prisma.InputJsonValue;

/** What the agent reads back: exit code and output, with a note when the sandbox cut or killed it. */
export function observationText(r: ExecResult): string {
  const notes = [
    r.timedOut ? "[killed at the time limit]" : null,
    r.truncated ? `[output truncated: ${r.stdoutBytes} bytes of stdout, ${r.stderrBytes} of stderr]` : null,
  ].filter(Boolean);
  return [
    `exit code: ${r.exitCode ?? "none"}`,
    r.stdout && `stdout:\n${r.stdout}`,
    r.stderr && `stderr:\n${r.stderr}`,
    ...notes,
  ]
    .filter(Boolean)
    .join("\n");
}

async function callPolicy(agent: AgentEndpoint, sessionId: string, messages: unknown[]) {
  const res = await fetch(`${agent.baseUrl.replace(/\/$/, "")}/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${agent.apiKey}`,
      "x-session-id": sessionId,
      "x-turn-type": "main",
    },
    body: JSON.stringify({ model: agent.model, messages, tools: [BASH_TOOL] }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`the policy answered ${res.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { choices?: { message?: AssistantMessage }[] };
  const message = body.choices?.[0]?.message;
  if (!message) throw new Error("the policy's answer has no choices[0].message");
  return { message, turnId: res.headers.get("x-turn-id") };
}

export async function runEpisode(input: RunEpisodeInput) {
  const maxSteps = input.maxSteps ?? 10;
  const environment = await db().environment.findUniqueOrThrow({ where: { id: input.environmentId } });
  const task = await db().task.findUniqueOrThrow({ where: { id: input.taskId } });
  const spec = taskSpecSchema.parse(task.spec);
  if (spec.kind !== "terminal")
    throw badRequest(`Task ${task.key} is a ${spec.kind} task: this runner runs terminal tasks`);
  if (!(environment.tools as string[]).includes("bash"))
    throw badRequest(`Environment ${environment.name} does not offer the bash tool`);
  const provider = input.provider ?? sandboxProvider(environment.provider as ProviderName);
  const limits = sandboxLimitsSchema.parse(environment.limits);

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
    const lease = await provider.allocate({
      limits,
      network: environment.network as "none",
      image: containerImage(spec),
    });
    leaseId = lease.id;
    await db().episode.update({
      where: { id: episode.id },
      data: { leaseId: lease.id, leaseProvider: provider.name, sessionId: episode.id },
    });
    await provider.reset(lease.id, spec.workspace);

    const messages: unknown[] = [
      { role: "system", content: SYSTEM },
      { role: "user", content: spec.instruction },
    ];
    let finished = false;
    for (let step = 0; step < maxSteps; step++) {
      const { message, turnId } = await callPolicy(input.agent, episode.id, messages);
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
        let content: string;
        let exec: ExecResult | null = null;
        let args: unknown = call.function.arguments;
        try {
          args = JSON.parse(call.function.arguments);
        } catch {
          // kept as the raw string: the observation says why nothing ran
        }
        const command = (args as { command?: unknown } | null)?.command;
        if (call.function.name !== "bash") content = `error: unknown tool ${call.function.name}; the only tool is bash`;
        else if (typeof command !== "string") content = 'error: arguments must be JSON {"command": "..."}';
        else {
          exec = await provider.exec(lease.id, command, { phase: "agent" });
          content = observationText(exec);
        }
        messages.push({ role: "tool", tool_call_id: call.id, content });
        results.push({
          toolCallId: call.id,
          content,
          ...(exec && {
            exitCode: exec.exitCode,
            timedOut: exec.timedOut,
            truncated: exec.truncated,
            durationMs: exec.durationMs,
            stdoutBytes: exec.stdoutBytes,
            stderrBytes: exec.stderrBytes,
          }),
        });
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

    const verdict = await provider.evaluate(lease.id, {
      files: spec.tests,
      command: spec.verifier.command,
      timeoutSeconds: spec.verifier.timeoutSeconds,
      env: spec.verifier.env,
    });
    return await db().episode.update({
      where: { id: episode.id },
      data: {
        status: verdict.reward === null ? "FAILED" : "DONE",
        outcome: verdict.reward,
        outcomeDetail: json({
          rewardFile: verdict.rewardFile,
          error: verdict.error,
          exitCode: verdict.exec.exitCode,
          stdout: verdict.exec.stdout.slice(0, 4000),
          stderr: verdict.exec.stderr.slice(0, 4000),
        }),
        truncation: finished ? null : "step_budget",
        error: verdict.error,
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
    if (leaseId) await provider.close(leaseId);
  }
}
