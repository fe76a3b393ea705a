// Custom reward modules: an experiment may name a file whose default (or `reward`) export is an
// async `(turn, nextState) => {votes, score, hint?}`; it then replaces the PRM. Modules run with the
// worker's privileges, so only administrators may set the path (enforced where settings are saved).
import { stat } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
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

const MODULE_EXTENSIONS = new Set([".ts", ".mts", ".js", ".mjs"]);

/** A realistic turn used to check that a module answers with the right shape before it is saved. */
export const PROBE_TURN: CustomRewardTurn = {
  method: "combine",
  messages: [{ role: "user", content: "Summarise the water cycle." }],
  responseText: "Water evaporates, condenses into clouds and falls back as precipitation.",
};
export const PROBE_NEXT_STATE: ChatMessage = { role: "user", content: "no — shorter please, one sentence" };

function resolveModulePath(modulePath: string, baseDir: string): string {
  return path.resolve(baseDir, modulePath);
}

/**
 * Imports the module and returns its reward function, wrapped so every result is validated.
 * The file's mtime is part of the import URL so an edited module is re-read, not served from cache.
 */
export async function loadCustomReward(modulePath: string, opts: { baseDir?: string } = {}): Promise<CustomRewardFn> {
  const abs = resolveModulePath(modulePath, opts.baseDir ?? process.cwd());
  if (!MODULE_EXTENSIONS.has(path.extname(abs)))
    throw new Error(`custom reward module must be .ts, .mts, .js or .mjs: ${modulePath}`);
  let info;
  try {
    info = await stat(abs);
  } catch {
    throw new Error(`custom reward module not found: ${abs}`);
  }
  if (!info.isFile()) throw new Error(`custom reward module is not a file: ${abs}`);
  const mod = (await import(
    /* @vite-ignore */ /* webpackIgnore: true */ `${pathToFileURL(abs).href}?v=${Math.floor(info.mtimeMs)}-${info.size}`
  )) as Record<string, unknown>;
  const fn = typeof mod.default === "function" ? mod.default : mod.reward;
  if (typeof fn !== "function")
    throw new Error(`custom reward module exports no function (default or "reward"): ${abs}`);
  return async (turn, nextState) => {
    const parsed = CustomRewardResultSchema.safeParse(await fn(turn, nextState));
    if (!parsed.success)
      throw new Error(`custom reward returned an invalid result: ${parsed.error.issues[0]?.message ?? "bad shape"}`);
    return parsed.data;
  };
}

/** Save-time check: the file exists, exports a function, and answers the probe with the right shape in time. */
export async function validateCustomReward(
  modulePath: string,
  opts: { baseDir?: string; timeoutMs?: number } = {},
): Promise<{ ok: true; probe: CustomRewardResult } | { ok: false; error: string }> {
  try {
    const fn = await loadCustomReward(modulePath, opts);
    const probe = await withTimeout(opts.timeoutMs ?? 10_000, () => fn(PROBE_TURN, PROBE_NEXT_STATE));
    return { ok: true, probe };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
