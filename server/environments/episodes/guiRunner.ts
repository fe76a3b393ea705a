// Runs one GUI episode on a gui-rl pool (pre-warmed desktops behind `env_pool_server`): the policy (a vision
// model behind the recording proxy) sees the task and the latest screenshot and answers with one action (a
// pyautogui snippet, or DONE/FAIL/WAIT as OSWorld's action space has it), which the pool executes. Every
// screenshot is stored with the episode (EpisodeScreenshot: index 0 after reset, k after step k - 1), and
// the pool's evaluate is the outcome. A lost lease or a dead pool fails the episode without an outcome.
import { db, type Prisma } from "../../platform/db/client";
import { badRequest, errorText } from "../../platform/errors";
import type { RemoteObservation, RemotePoolProvider } from "../sandbox/remote/provider";
import { taskSpecSchema } from "../tasks/spec";
import type { AgentEndpoint } from "./runner";

export interface RunGuiEpisodeInput {
  environmentId: string;
  taskId: string;
  agent: AgentEndpoint;
  /** A `gui` remote-pool provider. */
  pool: RemotePoolProvider;
  maxSteps?: number;
  groupKey?: string;
  sampleIndex?: number;
}

const SYSTEM =
  "You control a Linux desktop. Each turn you see a screenshot. Answer with exactly one action: Python " +
  "code using pyautogui, or DONE when the task is complete, FAIL if it cannot be done, WAIT to wait.";
const FINAL = new Set(["DONE", "FAIL"]);

const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as Prisma.InputJsonValue;

/** The observation as an OpenAI user message: the text (when given) and the screenshot as a data URL. */
function observationMessage(obs: RemoteObservation, text: string) {
  return {
    role: "user",
    content: [
      { type: "text", text },
      ...(obs.screenshot
        ? [{ type: "image_url", image_url: { url: `data:image/png;base64,${obs.screenshot.toString("base64")}` } }]
        : []),
    ],
  };
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
    body: JSON.stringify({ model: agent.model, messages }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`the policy answered ${res.status}: ${text.slice(0, 300)}`);
  const content = (JSON.parse(text) as { choices?: { message?: { content?: string | null } }[] }).choices?.[0]?.message
    ?.content;
  if (typeof content !== "string") throw new Error("the policy's answer has no text content");
  return { action: content.trim(), turnId: res.headers.get("x-turn-id") };
}

export async function runGuiEpisode(input: RunGuiEpisodeInput) {
  if (input.pool.protocol !== "gui") throw badRequest(`runGuiEpisode needs a gui pool, not ${input.pool.protocol}`);
  const maxSteps = input.maxSteps ?? 15;
  const environment = await db().environment.findUniqueOrThrow({ where: { id: input.environmentId } });
  const task = await db().task.findUniqueOrThrow({ where: { id: input.taskId } });
  const spec = taskSpecSchema.parse(task.spec);
  // The desktop task's own config (OSWorld's JSON) rides in the task's metadata as `task_config`.
  const config = (spec.metadata.task_config as Record<string, unknown> | undefined) ?? {
    id: spec.key,
    instruction: spec.instruction,
  };

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
  const keep = (index: number, obs: RemoteObservation) =>
    obs.screenshot
      ? db().episodeScreenshot.create({ data: { episodeId: episode.id, index, png: new Uint8Array(obs.screenshot) } })
      : null;
  let leaseId: string | null = null;
  try {
    const lease = await input.pool.allocate({
      task: { key: spec.key, instruction: spec.instruction, config },
      episodeId: episode.id,
      sampleIndex: input.sampleIndex,
    });
    leaseId = lease.id;
    await db().episode.update({
      where: { id: episode.id },
      data: { leaseId: `${lease.pool}#${lease.poolLeaseId}`, leaseProvider: input.pool.name, sessionId: episode.id },
    });
    const reset = await input.pool.reset(lease.id);
    if (!reset.observation) throw new Error("the gui pool's reset sent no observation");
    await keep(0, reset.observation);

    const messages: unknown[] = [
      { role: "system", content: SYSTEM },
      observationMessage(reset.observation, spec.instruction),
    ];
    let finished = false;
    for (let step = 0; step < maxSteps; step++) {
      const { action, turnId } = await callPolicy(input.agent, episode.id, messages);
      messages.push({ role: "assistant", content: action });
      const obs = await input.pool.step(lease.id, { kind: "gui", action });
      await keep(step + 1, obs);
      await db().episodeStep.create({
        data: {
          episodeId: episode.id,
          index: step,
          turnId,
          action: json({ action }),
          observation: json({
            done: obs.done,
            text: obs.text.slice(0, 4000),
            screenshot: obs.screenshot ? step + 1 : null,
          }),
        },
      });
      if (obs.done || FINAL.has(action)) {
        finished = true;
        break;
      }
      messages.push(observationMessage(obs, "The screen after your action."));
    }

    const verdict = await input.pool.evaluate(lease.id);
    return await db().episode.update({
      where: { id: episode.id },
      data: {
        status: "DONE",
        outcome: verdict.reward,
        outcomeDetail: json({ pool: lease.pool }),
        truncation: finished ? null : "step_budget",
        finishedAt: new Date(),
      },
      include: { steps: { orderBy: { index: "asc" } }, screenshots: { orderBy: { index: "asc" } } },
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
