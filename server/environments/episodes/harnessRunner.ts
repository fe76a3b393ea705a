// Runs one terminal episode with a stock agent as a black box ("harness as environment"): the task's
// workspace in a fresh sandbox lease, the agent started by its harness with its base URL pointed at the
// episode's bridge (harness/bridge.ts), which forwards to the recording proxy under the session id = the
// episode's id, so the episode is exactly the session the proxy recorded for that sandbox. Then the task's
// verifier scores /app. The agent's turns are the session's turns; this runner keeps one step: the run.
import { db, type Prisma } from "../../platform/db/client";
import { badRequest, errorText } from "../../platform/errors";
import { ProxyBridge } from "../harness/bridge";
import { AGENT_DIR, launchPlan, type Harness } from "../harness/schema";
import { sandboxLimitsSchema } from "../sandbox/limits";
import type { SandboxProvider } from "../sandbox/provider";
import { sandboxProvider, type ProviderName } from "../sandbox/registry";
import { containerImage } from "../tasks/image";
import { taskSpecSchema } from "../tasks/spec";
import type { AgentEndpoint } from "./runner";

export interface RunHarnessEpisodeInput {
  environmentId: string;
  taskId: string;
  harness: Harness;
  /** The proxy's OpenAI base URL and a proxy key bound to the experiment (it stays outside the sandbox). */
  agent: AgentEndpoint;
  /** A host folder holding the agent's installation, mounted read-only at AGENT_DIR (docs/harness.md). */
  agentInstall?: string;
  groupKey?: string;
  sampleIndex?: number;
  provider?: SandboxProvider;
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Prisma.InputJsonValue;
const tail = (s: string) => s.slice(-4000);

export async function runHarnessEpisode(input: RunHarnessEpisodeInput) {
  const environment = await db().environment.findUniqueOrThrow({ where: { id: input.environmentId } });
  const task = await db().task.findUniqueOrThrow({ where: { id: input.taskId } });
  const spec = taskSpecSchema.parse(task.spec);
  if (spec.kind !== "terminal")
    throw badRequest(`Task ${task.key} is a ${spec.kind} task: a harness runs terminal tasks`);
  const provider = input.provider ?? sandboxProvider(environment.provider as ProviderName);
  const { budget } = input.harness;
  // The agent runs as one command: the lease's wall clock is the harness's time budget.
  const limits = { ...sandboxLimitsSchema.parse(environment.limits), wallSeconds: budget.wallSeconds };

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
  const bridge = new ProxyBridge({
    proxyUrl: input.agent.baseUrl,
    apiKey: input.agent.apiKey,
    episodeId: episode.id,
    maxRequests: budget.turns,
  });
  let leaseId: string | null = null;
  try {
    await bridge.start();
    const lease = await provider.allocate({ limits, network: "none", image: containerImage(spec) });
    leaseId = lease.id;
    await db().episode.update({
      where: { id: episode.id },
      data: { leaseId: lease.id, leaseProvider: provider.name, sessionId: episode.id },
    });
    await provider.reset(lease.id, spec.workspace);

    const plan = launchPlan(input.harness, { instruction: spec.instruction, model: input.agent.model });
    const run = await provider.exec(lease.id, plan.command, {
      phase: "agent",
      env: plan.env,
      sockets: [bridge.mount],
      hostReadOnly: input.agentInstall ? [{ at: AGENT_DIR, host: input.agentInstall }] : [],
      timeoutSeconds: budget.wallSeconds,
    });
    await db().episodeStep.create({
      data: {
        episodeId: episode.id,
        index: 0,
        turnId: null,
        action: json({ harness: input.harness.name, command: plan.command.split("\n").at(-1) }),
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
          stdout: tail(verdict.exec.stdout),
          stderr: tail(verdict.exec.stderr),
        }),
        truncation: run.timedOut ? "timeout" : bridge.refused > 0 ? "step_budget" : null,
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
    await bridge.close();
  }
}
