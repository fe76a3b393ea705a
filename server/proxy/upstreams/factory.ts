// Which Upstream serves an experiment: its policy backend (from the live run's frozen config, else the
// experiment's), with secrets unsealed.
import path from "node:path";
import type { ExperimentConfig } from "../../config/experimentConfig";
import { AbortRetryingUpstream } from "./abortRetry";
import { EmbeddedUpstream } from "./embedded";
import { LoraServing } from "./loraServing";
import { OpenAiHttpUpstream } from "./openaiHttp";
import type { Upstream } from "./types";
import { DEFAULT_MAX_LOADED, UserLoraRouter } from "./userLora";

export interface UpstreamContext {
  policy: ExperimentConfig["policy"];
  /** The active policy version's checkpoint (embedded), when there is one. */
  checkpointPath: string | null;
  version: number;
  timeoutMs: number;
  defaultMaxTokens: number;
  /** The name an embedded policy answers with (`model` in its responses): the experiment's slug, as clients ask for it. */
  servedName?: string;
}

export type UpstreamFactory = (ctx: UpstreamContext) => Upstream;

/** Two contexts with the same signature can share one upstream instance. */
export function upstreamSignature(policy: ExperimentConfig["policy"]): string {
  return JSON.stringify(policy);
}

export const createUpstream: UpstreamFactory = (ctx) => {
  const p = ctx.policy;
  if (p.kind === "embedded") {
    return new EmbeddedUpstream({
      model: ctx.servedName ?? "embedded",
      checkpointPath: path.resolve(ctx.checkpointPath ?? p.checkpoint),
      version: ctx.version,
      defaultMaxTokens: ctx.defaultMaxTokens,
    });
  }
  const http = new OpenAiHttpUpstream({
    kind: p.kind,
    baseUrl: p.baseUrl,
    model: p.model,
    apiKey: p.apiKey || undefined,
    timeoutMs: ctx.timeoutMs,
    lora: p.loraAdapters
      ? new LoraServing({
          engine: p.loraAdapters,
          baseUrl: p.baseUrl,
          apiKey: p.apiKey || undefined,
          servedName: ctx.servedName ?? "policy",
          timeoutMs: ctx.timeoutMs,
          initial: { version: ctx.version, checkpointPath: ctx.checkpointPath },
        })
      : undefined,
    // Per-user adapters (a per-user experiment's users): one router per upstream, so experiments sharing an engine
    // share its limit of loaded adapters.
    userLora: p.loraAdapters
      ? new UserLoraRouter({
          engine: p.loraAdapters,
          baseUrl: p.baseUrl,
          apiKey: p.apiKey || undefined,
          timeoutMs: ctx.timeoutMs,
          maxLoaded: p.loraMaxLoaded ?? DEFAULT_MAX_LOADED,
        })
      : undefined,
  });
  // slime's weight updates abort SGLang's in-flight generations: retried or continued (abortRetry.ts).
  return p.kind === "sglang" ? new AbortRetryingUpstream(http) : http;
};
