// Custom reward modules: an experiment may name a file whose default (or `reward`) export is an
// async `(turn, nextState) => {votes, score, hint?}`; it then replaces the PRM. Modules run with the
// worker's privileges: only administrators may set the path (experiments/service.ts), it loads only from the
// operator's EXTENSIONS_DIR (platform/extensions.ts), and the web process probes it in a child process
// (customRewardProbe.ts), never by importing it.
import { stat } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { resolveExtensionModule } from "../../platform/extensions";
import { withTimeout } from "./resilience";
import { CustomRewardResultSchema, type ChatMessage, type CustomRewardResult, type JudgeMethod } from "./schemas";

export type CustomRewardTurn = {
  method: JudgeMethod;
  /** The request the policy answered. */
  messages: readonly ChatMessage[];
  /** The assistant output as the judge sees it (content plus tool calls). */
  responseText: string;
};

export type CustomRewardFn = (turn: CustomRewardTurn, nextState: ChatMessage) => Promise<CustomRewardResult>;

/** A realistic turn used to check that a module answers with the right shape before it is saved. */
export const PROBE_TURN: CustomRewardTurn = {
  method: "combine",
  messages: [{ role: "user", content: "Summarise the water cycle." }],
  responseText: "Water evaporates, condenses into clouds and falls back as precipitation.",
};
export const PROBE_NEXT_STATE: ChatMessage = { role: "user", content: "no — shorter please, one sentence" };

/**
 * Imports the module and returns its reward function, wrapped so every result is validated.
 * The file's mtime is part of the import URL so an edited module is re-read, not served from cache.
 */
export async function loadCustomReward(modulePath: string, opts: { dir?: string } = {}): Promise<CustomRewardFn> {
  const abs = await resolveExtensionModule(modulePath, opts);
  const info = await stat(abs);
  if (!info.isFile()) throw new Error(`custom reward module is not a file: ${modulePath}`);
  const mod = (await import(
    /* @vite-ignore */ /* webpackIgnore: true */ `${pathToFileURL(abs).href}?v=${Math.floor(info.mtimeMs)}-${info.size}`
  )) as Record<string, unknown>;
  const fn = typeof mod.default === "function" ? mod.default : mod.reward;
  if (typeof fn !== "function")
    throw new Error(`custom reward module exports no function (default or "reward"): ${modulePath}`);
  return async (turn, nextState) => {
    const parsed = CustomRewardResultSchema.safeParse(await fn(turn, nextState));
    if (!parsed.success)
      throw new Error(`custom reward returned an invalid result: ${parsed.error.issues[0]?.message ?? "bad shape"}`);
    return parsed.data;
  };
}

/**
 * The probe: the file loads, exports a function, and answers PROBE_TURN with the right shape in time. It imports
 * the module, so it runs in a worker or in the probe's child process, never in the web process.
 */
export async function validateCustomReward(
  modulePath: string,
  opts: { dir?: string; timeoutMs?: number } = {},
): Promise<{ ok: true; probe: CustomRewardResult } | { ok: false; error: string }> {
  try {
    const fn = await loadCustomReward(modulePath, opts);
    const probe = await withTimeout(opts.timeoutMs ?? 10_000, () => fn(PROBE_TURN, PROBE_NEXT_STATE));
    return { ok: true, probe };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
