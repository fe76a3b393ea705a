// Runs one GUI episode on a gui-rl pool (pre-warmed desktops behind `env_pool_server`): the policy (a vision
// model behind the recording proxy) sees the task and the latest screenshot and answers with one action (a
// pyautogui snippet, or DONE/FAIL/WAIT as OSWorld's action space has it), which the pool executes. Every
// screenshot is stored with the episode (EpisodeScreenshot: index 0 after reset, k after step k - 1), and
// the pool's evaluate is the outcome. The lease's life is onPool.ts's.
import { db } from "../../platform/db/client";
import type { RemoteObservation } from "../sandbox/remote/provider";
import { assertProtocol, runOnPool, type PoolExecuteOptions, type PoolRunner } from "./onPool";
import { callPolicy, json, startEpisode, type RunEpisodeInput } from "./runner";

export type RunGuiEpisodeInput = Omit<RunEpisodeInput, "agent" | "provider"> & PoolExecuteOptions;

const SYSTEM =
  "You control a Linux desktop. Each turn you see a screenshot. Answer with exactly one action: Python " +
  "code using pyautogui, or DONE when the task is complete, FAIL if it cannot be done, WAIT to wait.";
const FINAL = new Set(["DONE", "FAIL"]);
/** OSWorld's agents stop at 15 steps by default. */
export const GUI_MAX_STEPS = 15;

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

const keep = (episodeId: string, index: number, obs: RemoteObservation) =>
  obs.screenshot
    ? db().episodeScreenshot.create({ data: { episodeId, index, png: new Uint8Array(obs.screenshot) } })
    : null;

const GUI: PoolRunner = {
  protocol: "gui",
  label: "GUI",
  // The desktop task's own config (OSWorld's JSON) rides in the task's metadata as `task_config`.
  task: ({ spec }) => ({
    key: spec.key,
    instruction: spec.instruction,
    config: (spec.metadata.task_config as Record<string, unknown> | undefined) ?? {
      id: spec.key,
      instruction: spec.instruction,
    },
  }),
  drive: async ({ episode, spec, sessionId, lease, reset, opts }) => {
    if (!reset.observation) throw new Error("the gui pool's reset sent no observation");
    await keep(episode.id, 0, reset.observation);
    const messages: unknown[] = [
      { role: "system", content: SYSTEM },
      observationMessage(reset.observation, spec.instruction),
    ];
    for (let step = 0; step < episode.maxSteps; step++) {
      opts.signal?.throwIfAborted();
      const { message, turnId } = await callPolicy(opts.agent, sessionId, messages, [], null, opts.signal);
      if (typeof message.content !== "string") throw new Error("the policy's answer has no text content");
      const action = message.content.trim();
      messages.push({ role: "assistant", content: action });
      const obs = await opts.pool.step(lease.id, { kind: "gui", action });
      await keep(episode.id, step + 1, obs);
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
      if (obs.done || FINAL.has(action)) return true;
      messages.push(observationMessage(obs, "The screen after your action."));
    }
    return false;
  },
  // The pool's evaluate sends only the score.
  detail: () => ({}),
};

/** Creates, claims and runs one GUI episode in this process (scripts and tests; the worker queues them). */
export async function runGuiEpisode(input: RunGuiEpisodeInput) {
  assertProtocol(GUI, input.pool);
  const episode = await startEpisode({ ...input, maxSteps: input.maxSteps ?? GUI_MAX_STEPS });
  return executeGuiEpisode(episode.id, input);
}

/** Runs a claimed (RUNNING) episode on a gui pool; returns it with its steps and screenshots. */
export async function executeGuiEpisode(episodeId: string, opts: PoolExecuteOptions) {
  const ended = await runOnPool(GUI, episodeId, opts);
  const screenshots = await db().episodeScreenshot.findMany({ where: { episodeId }, orderBy: { index: "asc" } });
  return { ...ended, screenshots };
}
