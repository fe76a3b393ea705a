// Runs one terminal episode with a stock agent as a black box ("harness as environment"): the task's
// workspace in a fresh sandbox lease, the agent started by its harness with its base URL pointed at the
// episode's bridge (harness/bridge.ts), which forwards to the recording proxy under the episode's session
// id, so the episode is exactly the session the proxy recorded for that sandbox. Then the task's verifier
// scores /app. The agent's turns are the session's turns; this runner keeps one step: the run.
import { db } from "../../platform/db/client";
import { badRequest } from "../../platform/errors";
import { ProxyBridge } from "../harness/bridge";
import { AGENT_DIR, launchPlan, type Harness } from "../harness/schema";
import { sandboxLimitsSchema } from "../sandbox/limits";
import type { SandboxProvider } from "../sandbox/provider";
import { sandboxProvider, type ProviderName } from "../sandbox/registry";
import { containerImage } from "../tasks/image";
import {
  failEpisode,
  finish,
  json,
  loadClaimed,
  startEpisode,
  timed,
  type AgentEndpoint,
  type RunEpisodeInput,
} from "./runner";

export interface HarnessExecuteOptions {
  harness: Harness;
  /** The proxy's OpenAI base URL and a proxy key of the experiment (it stays outside the sandbox). */
  agent: AgentEndpoint;
  /** A host folder holding the agent's installation, mounted read-only at AGENT_DIR (docs/harness.md). */
  agentInstall?: string;
  provider?: SandboxProvider;
  /** Aborted: the run is not scored and the episode is handed back (the worker re-queues it). */
  signal?: AbortSignal;
}

export type RunHarnessEpisodeInput = Omit<RunEpisodeInput, "agent" | "provider" | "maxSteps"> & HarnessExecuteOptions;

const tail = (s: string) => s.slice(-4000);

/** Creates, claims and runs one harness episode in this process (scripts and tests; the worker queues them). */
export async function runHarnessEpisode(input: RunHarnessEpisodeInput) {
  const episode = await startEpisode({ ...input, maxSteps: 1 });
  return executeHarnessEpisode(episode.id, input);
}

/** Runs a claimed (RUNNING) episode with the harness's agent; returns it with its one step. */
export async function executeHarnessEpisode(episodeId: string, opts: HarnessExecuteOptions) {
  const { episode, spec, sessionId } = await loadClaimed(episodeId);
  const provider = opts.provider ?? sandboxProvider(episode.environment.provider as ProviderName);
  const { budget } = opts.harness;
  // The agent runs as one command: the lease's wall clock is the harness's time budget.
  const limits = { ...sandboxLimitsSchema.parse(episode.environment.limits), wallSeconds: budget.wallSeconds };
  const bridge = new ProxyBridge({
    proxyUrl: opts.agent.baseUrl,
    apiKey: opts.agent.apiKey,
    sessionId,
    maxRequests: budget.turns,
  });
  let leaseId: string | null = null;
  try {
    if (spec.kind !== "terminal")
      throw badRequest(`Task ${episode.task.key} is a ${spec.kind} task: a harness runs terminal tasks`);
    await bridge.start();
    const [lease, allocateMs] = await timed(() =>
      provider.allocate({ limits, network: "none", image: containerImage(spec) }),
    );
    leaseId = lease.id;
    await db().episode.update({
      where: { id: episode.id },
      data: { leaseId: lease.id, leaseProvider: provider.name, sessionId, allocateMs },
    });
    await provider.reset(lease.id, spec.workspace);

    const plan = launchPlan(opts.harness, { instruction: spec.instruction, model: opts.agent.model });
    const run = await provider.exec(lease.id, plan.command, {
      phase: "agent",
      env: plan.env,
      sockets: [bridge.mount],
      hostReadOnly: opts.agentInstall ? [{ at: AGENT_DIR, host: opts.agentInstall }] : [],
      timeoutSeconds: budget.wallSeconds,
    });
    opts.signal?.throwIfAborted();
    await db().episodeStep.create({
      data: {
        episodeId: episode.id,
        index: 0,
        turnId: null,
        action: json({ harness: opts.harness.name, command: plan.command.split("\n").at(-1) }),
        observation: json({
          exitCode: run.exitCode,
          timedOut: run.timedOut,
          durationMs: run.durationMs,
          stdout: tail(run.stdout),
          stderr: tail(run.stderr),
          policyCalls: bridge.requests,
          refusedCalls: bridge.refused,
        }),
      },
    });

    const [verdict, evaluateMs] = await timed(() =>
      provider.evaluate(lease.id, {
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
        stdout: tail(verdict.exec.stdout),
        stderr: tail(verdict.exec.stderr),
      }),
      truncation: run.timedOut ? "timeout" : bridge.refused > 0 ? "step_budget" : null,
      error: verdict.error,
    });
  } catch (e) {
    await failEpisode(episode.id, e, opts.signal);
    throw e;
  } finally {
    if (leaseId) await provider.close(leaseId);
    await bridge.close();
  }
}
