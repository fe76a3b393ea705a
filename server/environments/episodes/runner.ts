// Runs one episode, terminal or tool-call: the agent's policy called through the recording proxy (one proxy
// session per attempt, so every step is a recorded turn: the X-Turn-Id the proxy answers with is kept on
// the step), each tool call answered — `bash` in a sandbox lease holding the task's workspace, `calc` and
// `lookup` in-process — and fed back as a tool message, step and token budgets, then the outcome: the task's
// verifier (terminal) or the final answer's score (tool-call). A lease is closed whatever happens; the
// episode row says how it ended. Claiming, retries and heartbeats are the worker's (episodes/worker.ts).
import { EPISODE_SESSION_PREFIX } from "../../labels/episodes";
import { db, type Prisma } from "../../platform/db/client";
import { badRequest, errorText } from "../../platform/errors";
import { sandboxLimitsSchema } from "../sandbox/limits";
import type { ExecResult, SandboxProvider } from "../sandbox/provider";
import { sandboxProvider, type ProviderName } from "../sandbox/registry";
import { scoreAnswer } from "../tasks/answer";
import { containerImage } from "../tasks/image";
import { taskSpecSchema, type TaskSpec } from "../tasks/spec";
import { runTaskTool, TOOL_DEFINITIONS } from "./tools";

export interface AgentEndpoint {
  /** The proxy's OpenAI base URL, e.g. http://127.0.0.1:30000/v1 */
  baseUrl: string;
  /** A proxy-scoped API key of the experiment (or an unbound one: `model` then names the experiment). */
  apiKey: string;
  model: string;
}

/** One policy reply of an episode step. */
export interface PolicyReply {
  message: AssistantMessage;
  /** The recorded turn (the proxy's X-Turn-Id); null when the call went around the proxy. */
  turnId: string | null;
  completionTokens: number;
  /** Cut at max_tokens. */
  cut: boolean;
}

/**
 * A policy reached without the proxy: a held-out evaluation runs a pinned version's checkpoint in the
 * evaluate worker (server/evaluation/episodes.ts), as the eval-set evaluation does, since the proxy serves
 * only the active version.
 */
export type PolicyCaller = (req: {
  step: number;
  messages: unknown[];
  tools: unknown[];
  maxTokens: number | null;
  signal?: AbortSignal;
}) => Promise<PolicyReply>;

export interface ExecuteOptions {
  /** The recording proxy (the default: every step a recorded turn), or a caller of a pinned version. */
  agent: AgentEndpoint | PolicyCaller;
  provider?: SandboxProvider;
  /** Aborted: the episode stops between steps and throws (the worker puts it back in the queue). */
  signal?: AbortSignal;
}

export interface RunEpisodeInput extends Omit<ExecuteOptions, "signal"> {
  environmentId: string;
  taskId: string;
  /** Upstream terminal-rl stops at 10 iterations (max_iteration); ReTool at 16 tool calls. */
  maxSteps?: number;
  groupKey?: string;
  sampleIndex?: number;
}

export const BASH_TOOL = TOOL_DEFINITIONS.bash;

const TERMINAL_SYSTEM =
  "You are a terminal agent. Solve the task by calling the bash tool; the workspace is /app. " +
  "When the task is done, answer without a tool call.";
export const toolCallSystem = (tools: readonly string[]) =>
  `Solve the problem. You may call the tools ${tools.join(", ")}. ` +
  "Give the final answer as \\boxed{answer}, without a tool call.";

interface ToolCall {
  id: string;
  type?: string;
  function: { name: string; arguments: string };
}
export interface AssistantMessage {
  content?: string | null;
  tool_calls?: ToolCall[] | null;
}

/** A value as Prisma JSON input (dates and undefined dropped as JSON does). */
export const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Prisma.InputJsonValue;

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

/** One agent step kept with its episode: the reply (its text and tool calls) and what each call returned. */
export function recordStep(
  episodeId: string,
  index: number,
  turnId: string | null,
  message: AssistantMessage,
  results: unknown[],
) {
  const calls = message.tool_calls ?? [];
  return db().episodeStep.create({
    data: {
      episodeId,
      index,
      turnId,
      action: json({
        content: message.content ?? "",
        toolCalls: calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
      }),
      observation: json({ results }),
    },
  });
}

/** One policy call through the proxy as a main turn of the episode's session; every runner calls it so. */
export async function callPolicy(
  agent: AgentEndpoint,
  sessionId: string,
  messages: unknown[],
  tools: unknown[],
  maxTokens: number | null,
  signal?: AbortSignal,
): Promise<PolicyReply> {
  const res = await fetch(`${agent.baseUrl.replace(/\/$/, "")}/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${agent.apiKey}`,
      "x-session-id": sessionId,
      "x-turn-type": "main",
    },
    body: JSON.stringify({
      model: agent.model,
      messages,
      ...(tools.length ? { tools } : {}),
      ...(maxTokens !== null ? { max_tokens: maxTokens } : {}),
    }),
    signal,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`the policy answered ${res.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as {
    choices?: { message?: AssistantMessage; finish_reason?: string | null }[];
    usage?: { completion_tokens?: number };
  };
  const message = body.choices?.[0]?.message;
  if (!message) throw new Error("the policy's answer has no choices[0].message");
  return {
    message,
    turnId: res.headers.get("x-turn-id"),
    completionTokens: body.usage?.completion_tokens ?? 0,
    cut: body.choices?.[0]?.finish_reason === "length",
  };
}

/** A queued episode of a task in an environment, checked to fit: the environment must offer the task's tools. */
export async function createEpisode(input: Omit<RunEpisodeInput, "agent" | "provider">) {
  const environment = await db().environment.findUniqueOrThrow({ where: { id: input.environmentId } });
  const task = await db().task.findUniqueOrThrow({ where: { id: input.taskId } });
  assertFits(environment, taskSpecSchema.parse(task.spec), task.key);
  return db().episode.create({
    data: {
      experimentId: environment.experimentId,
      environmentId: environment.id,
      taskId: task.id,
      groupKey: input.groupKey,
      sampleIndex: input.sampleIndex,
      maxSteps: input.maxSteps ?? 10,
    },
  });
}

export function assertFits(environment: { name: string; tools: unknown }, spec: TaskSpec, key: string): void {
  const offered = environment.tools as string[];
  const needed = spec.kind === "terminal" ? ["bash"] : spec.tools;
  const missing = needed.filter((t) => !offered.includes(t));
  if (missing.length)
    throw badRequest(`Environment ${environment.name} does not offer ${missing.join(", ")}, which task ${key} needs`);
}

/** Creates an episode and claims it for this process (scripts and tests run it here; the worker queues them). */
export async function startEpisode(input: Omit<RunEpisodeInput, "agent" | "provider">) {
  const episode = await createEpisode(input);
  return db().episode.update({
    where: { id: episode.id },
    data: { status: "RUNNING", attempts: 1, startedAt: new Date(), heartbeatAt: new Date() },
  });
}

/** Creates, claims and runs one episode in this process (scripts and tests; the worker queues them). */
export async function runEpisode(input: RunEpisodeInput) {
  const episode = await startEpisode(input);
  return executeEpisode(episode.id, input);
}

/**
 * A claimed episode with its environment, task and session: one proxy session per attempt, named with the
 * prefix the trainer's sample collection and the episode labels look for (labels/episodes.ts).
 */
export async function loadClaimed(episodeId: string) {
  const episode = await db().episode.findUniqueOrThrow({
    where: { id: episodeId },
    include: { environment: true, task: true },
  });
  const spec = taskSpecSchema.parse(episode.task.spec);
  return { episode, spec, sessionId: `${EPISODE_SESSION_PREFIX}${episode.id}-${episode.attempts}` };
}

/** Marks the episode FAILED with the error, unless the worker is shutting down (it re-queues it instead). */
export async function failEpisode(episodeId: string, e: unknown, signal?: AbortSignal): Promise<void> {
  if (!signal?.aborted) await finish(episodeId, { status: "FAILED", error: errorText(e).slice(0, 2000) });
}

/** Runs a claimed (RUNNING) episode to its end; returns it with its steps. */
export async function executeEpisode(episodeId: string, opts: ExecuteOptions) {
  const { episode, spec, sessionId: session } = await loadClaimed(episodeId);
  // A pinned version's caller goes around the proxy: no session is recorded for it.
  const sessionId = typeof opts.agent === "function" ? null : session;
  let leaseId: string | null = null;
  const provider =
    spec.kind === "terminal" ? (opts.provider ?? sandboxProvider(episode.environment.provider as ProviderName)) : null;
  try {
    assertFits(episode.environment, spec, episode.task.key);
    let runTool: (call: ToolCall) => Promise<{ content: string; exec: ExecResult | null }>;
    if (spec.kind === "terminal") {
      const [lease, allocateMs] = await timed(() =>
        provider!.allocate({
          limits: sandboxLimitsSchema.parse(episode.environment.limits),
          network: episode.environment.network as "none",
          image: containerImage(spec),
        }),
      );
      leaseId = lease.id;
      await db().episode.update({
        where: { id: episode.id },
        data: { leaseId: lease.id, leaseProvider: provider!.name, sessionId, allocateMs },
      });
      await provider!.reset(lease.id, spec.workspace);
      runTool = async (call) => {
        const command = parseArgs(call.function.arguments)?.command;
        if (call.function.name !== "bash")
          return { content: `error: unknown tool ${call.function.name}; the only tool is bash`, exec: null };
        if (typeof command !== "string")
          return { content: 'error: arguments must be JSON {"command": "..."}', exec: null };
        const exec = await provider!.exec(lease.id, command, { phase: "agent" });
        return { content: observationText(exec), exec };
      };
    } else {
      await db().episode.update({ where: { id: episode.id }, data: { sessionId } });
      runTool = async (call) => ({
        content: runTaskTool(spec, call.function.name, call.function.arguments),
        exec: null,
      });
    }
    const tools = spec.kind === "terminal" ? [TOOL_DEFINITIONS.bash] : spec.tools.map((t) => TOOL_DEFINITIONS[t]);
    const messages: unknown[] = [
      { role: "system", content: spec.kind === "terminal" ? TERMINAL_SYSTEM : toolCallSystem(spec.tools) },
      { role: "user", content: spec.instruction },
    ];

    let final: string | null = null;
    let truncation: "step_budget" | "token_budget" | null = null;
    let spent = 0;
    for (let step = 0; step < episode.maxSteps; step++) {
      opts.signal?.throwIfAborted();
      const left = episode.maxTokens === null ? null : episode.maxTokens - spent;
      const { message, turnId, completionTokens, cut } =
        typeof opts.agent === "function"
          ? await opts.agent({ step, messages, tools, maxTokens: left, signal: opts.signal })
          : await callPolicy(opts.agent, session, messages, tools, left, opts.signal);
      spent += completionTokens;
      const calls = message.tool_calls ?? [];
      messages.push({
        role: "assistant",
        content: message.content ?? "",
        ...(calls.length ? { tool_calls: calls } : {}),
      });
      const results = [];
      for (const call of calls) {
        const { content, exec } = await runTool(call);
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
      await recordStep(episode.id, step, turnId, message, results);
      // A reply cut at the budget is not a final answer; a budget spent by tool calls ends the episode.
      if (episode.maxTokens !== null && (cut || (calls.length > 0 && spent >= episode.maxTokens))) {
        truncation = "token_budget";
        break;
      }
      if (calls.length === 0) {
        final = message.content ?? "";
        break;
      }
    }
    if (final === null) truncation ??= "step_budget";

    if (spec.kind === "toolcall") {
      // Upstream's strict verifier: no final answer (the budget ran out) scores like a wrong one.
      const outcome = final === null ? -1 : scoreAnswer(spec, final);
      return await finish(episode.id, {
        status: "DONE",
        outcome,
        outcomeDetail: json({ expected: spec.answer, verifier: spec.verifier, final }),
        truncation,
      });
    }
    const [verdict, evaluateMs] = await timed(() =>
      provider!.evaluate(leaseId!, {
        files: spec.tests,
        command: spec.verifier.command,
        timeoutSeconds: spec.verifier.timeoutSeconds,
        env: spec.verifier.env,
      }),
    );
    return await finish(episode.id, {
      evaluateMs,
      status: verdict.reward === null ? "FAILED" : "DONE",
      outcome: verdict.reward,
      outcomeDetail: json({
        rewardFile: verdict.rewardFile,
        error: verdict.error,
        exitCode: verdict.exec.exitCode,
        stdout: verdict.exec.stdout.slice(0, 4000),
        stderr: verdict.exec.stderr.slice(0, 4000),
      }),
      truncation,
      error: verdict.error,
    });
  } catch (e) {
    await failEpisode(episode.id, e, opts.signal);
    throw e;
  } finally {
    if (leaseId) await provider!.close(leaseId);
  }
}

function parseArgs(raw: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === "object" ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A sandbox or pool call and how long it took, in whole ms (the episode's allocateMs / evaluateMs). */
export async function timed<T>(call: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const out = await call();
  return [out, Math.round(performance.now() - started)];
}

/** Ends the episode (finishedAt now) and returns it with its steps. */
export function finish(episodeId: string, data: Prisma.EpisodeUpdateInput) {
  return db().episode.update({
    where: { id: episodeId },
    data: { ...data, finishedAt: new Date() },
    include: { steps: { orderBy: { index: "asc" } } },
  });
}
