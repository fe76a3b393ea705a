// Runs one episode on a swe-rl pool (`swe_env_pool_server`, which forwards to `swe_exec_server` containers):
// the container starts from the instance's image at allocate; our agent loop calls the policy through the
// recording proxy with the `bash` tool, and each call is the pool's `/exec` in the instance's checkout. As the
// fork's generate does, the agent's work is its diff: `/evaluate` applies it with the instance's eval script
// and the reward is `resolved` (1 or 0). A lost lease or a dead pool fails the episode with no outcome.
import { badRequest } from "../../platform/errors";
import { recordLease, type PoolExecuteOptions } from "./poolRunner";
import {
  BASH_TOOL,
  callPolicy,
  failEpisode,
  finish,
  json,
  loadClaimed,
  recordStep,
  startEpisode,
  type RunEpisodeInput,
} from "./runner";

export type RunSweEpisodeInput = Omit<RunEpisodeInput, "agent" | "provider"> & PoolExecuteOptions;

const SYSTEM =
  "You are a software engineer fixing an issue in the repository checked out in the current directory. " +
  "Use the bash tool to inspect and edit files. When the fix is complete, answer without a tool call.";
/** The fork's generate runs each command with a 180 s timeout by default. */
const EXEC_TIMEOUT_S = 180;

const assertSwePool = (pool: PoolExecuteOptions["pool"]) => {
  if (pool.protocol !== "swe") throw badRequest(`a swe episode needs a swe pool, not ${pool.protocol}`);
};

/** Creates, claims and runs one swe episode in this process (scripts and tests; the worker queues them). */
export async function runSweEpisode(input: RunSweEpisodeInput) {
  assertSwePool(input.pool);
  const episode = await startEpisode(input);
  return executeSweEpisode(episode.id, input);
}

/** Runs a claimed (RUNNING) episode on a swe pool to its end; returns it with its steps. */
export async function executeSweEpisode(episodeId: string, opts: PoolExecuteOptions) {
  const { episode, spec, sessionId } = await loadClaimed(episodeId);
  let leaseId: string | null = null;
  try {
    assertSwePool(opts.pool);
    if (spec.kind !== "terminal")
      throw badRequest(`Task ${episode.task.key} is a ${spec.kind} task: swe pools run repository tasks`);
    // The instance's image and eval script (the fork's dataset columns), from the task's metadata; a Harbor
    // task's own docker_image serves as the image.
    const image = (spec.metadata.image as string | undefined) ?? spec.container?.image ?? undefined;
    const evalScript = spec.metadata.eval_script as string | undefined;
    if (!image) throw badRequest(`Task ${episode.task.key} names no image (metadata.image or docker_image)`);
    if (!evalScript) throw badRequest(`Task ${episode.task.key} has no metadata.eval_script`);
    const lease = await opts.pool.allocate({
      task: { key: spec.key, instruction: spec.instruction, image, evalScript },
      episodeId: episode.id,
      sampleIndex: episode.sampleIndex ?? undefined,
    });
    leaseId = lease.id;
    await recordLease(episode.id, opts.pool, lease, sessionId);
    await opts.pool.reset(lease.id);

    const messages: unknown[] = [
      { role: "system", content: SYSTEM },
      { role: "user", content: spec.instruction },
    ];
    let finished = false;
    for (let step = 0; step < episode.maxSteps; step++) {
      opts.signal?.throwIfAborted();
      const { message, turnId } = await callPolicy(opts.agent, sessionId, messages, [BASH_TOOL], null, opts.signal);
      const calls = message.tool_calls ?? [];
      messages.push({
        role: "assistant",
        content: message.content ?? "",
        ...(calls.length ? { tool_calls: calls } : {}),
      });
      const results = [];
      for (const call of calls) {
        let content: string;
        let exitCode: number | null = null;
        const command = parseCommand(call.function.arguments);
        if (call.function.name !== "bash") content = `error: unknown tool ${call.function.name}; the only tool is bash`;
        else if (command === null) content = 'error: arguments must be JSON {"command": "..."}';
        else {
          const obs = await opts.pool.step(lease.id, { kind: "command", command, timeoutSeconds: EXEC_TIMEOUT_S });
          exitCode = obs.exitCode;
          content = `exit code: ${obs.exitCode ?? "none"}\n${obs.text}`;
        }
        messages.push({ role: "tool", tool_call_id: call.id, content });
        results.push({ toolCallId: call.id, content, exitCode });
      }
      await recordStep(episode.id, step, turnId, message, results);
      if (calls.length === 0) {
        finished = true;
        break;
      }
    }

    const verdict = await opts.pool.evaluate(lease.id);
    return await finish(episode.id, {
      status: "DONE",
      outcome: verdict.reward,
      outcomeDetail: json({ pool: lease.pool, ...verdict.detail }),
      truncation: finished ? null : "step_budget",
    });
  } catch (e) {
    await failEpisode(episode.id, e, opts.signal);
    throw e;
  } finally {
    if (leaseId) await opts.pool.close(leaseId);
  }
}

function parseCommand(raw: string): string | null {
  try {
    const v = JSON.parse(raw) as { command?: unknown };
    return typeof v?.command === "string" ? v.command : null;
  } catch {
    return null;
  }
}
