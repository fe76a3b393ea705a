// Serving trained versions as LoRA adapters hot-loaded into a running SGLang or vLLM engine (one GPU: the engine
// serves the base with --enable-lora, hf-local trains PEFT adapters beside it). Each new policy version's adapter
// folder is loaded under a name of its own, then requests name it; the previous adapter stays loaded (requests
// already in flight still use it) and the one before is unloaded. The calls are lora.ts's, checked against the
// engines' extracted contracts.
import { assertEgressAllowed } from "../../platform/egress";
import { adapterDirProblem } from "../../platform/extensions";
import {
  adapterNameSchema,
  loadAdapterCall,
  unloadAdapterCall,
  withAdapter,
  type LoraEngine,
  type LoraHttpCall,
} from "./lora";
import { UpstreamUnavailableError } from "./types";

export interface LoraServingOptions {
  engine: LoraEngine;
  /** The engine's OpenAI base URL (…/v1); the adapter routes are on its origin. */
  baseUrl: string;
  apiKey?: string;
  /** The experiment's slug: adapter names are `<slug>-v<version>`, so experiments sharing an engine do not collide. */
  servedName: string;
  timeoutMs: number;
  /** The version live when the proxy starts (loaded before the first request). */
  initial: { version: number; checkpointPath: string | null };
}

/** Adapters kept loaded: the current one and the one before (still answering requests sent before the switch). */
const KEEP = 2;

export class LoraServing {
  private current: string | null = null;
  private readonly loaded: string[] = [];
  private initial: LoraServingOptions["initial"] | null;

  constructor(private readonly opts: LoraServingOptions) {
    this.initial = opts.initial.version > 0 && opts.initial.checkpointPath ? opts.initial : null;
  }

  /** The engine-side name of a version's adapter. */
  nameOf(version: number): string {
    return adapterNameSchema.parse(`${this.opts.servedName}-v${version}`);
  }

  /** The adapter requests name now (null: the base). */
  get adapter(): string | null {
    return this.current;
  }

  /** Before a request: the version live at start-up is loaded first, so its traffic is not served by the base. */
  async ready(): Promise<void> {
    const initial = this.initial;
    if (!initial) return;
    try {
      await this.switchTo(initial.version, initial.checkpointPath);
    } catch (err) {
      throw new UpstreamUnavailableError(`LoRA adapter of version ${initial.version}: ${(err as Error).message}`);
    }
  }

  /** The request body naming the current adapter (SGLang `lora_path`, vLLM `model`); a client's own choice is dropped. */
  body(b: Record<string, unknown>): Record<string, unknown> {
    return withAdapter(this.opts.engine, b, this.current);
  }

  /** Load a version's adapter and serve it; version 0 (or no checkpoint) is the base. Throws when the engine refuses. */
  async switchTo(version: number, checkpointPath: string | null): Promise<void> {
    this.initial = null;
    if (version === 0 || !checkpointPath) {
      this.current = null;
      return;
    }
    const name = this.nameOf(version);
    if (!this.loaded.includes(name)) {
      // Checked again here, at use: a version acknowledged before the experiment served adapters was not checked.
      const problem = await adapterDirProblem(checkpointPath);
      if (problem) throw new Error(`version ${version}'s adapter folder ${problem}`);
      await this.call(loadAdapterCall(this.opts.engine, { name, path: checkpointPath }));
      this.loaded.push(name);
    }
    this.current = name;
    while (this.loaded.length > KEEP) {
      const old = this.loaded.shift()!;
      // An adapter the engine already dropped is not an error worth failing a switch for.
      await this.call(unloadAdapterCall(this.opts.engine, old)).catch(() => {});
    }
  }

  private call(c: LoraHttpCall): Promise<void> {
    return engineCall(this.opts, c);
  }
}

/** One adapter call (load/unload) to the engine's origin; throws with the engine's answer when it refuses. */
export async function engineCall(
  opts: { baseUrl: string; apiKey?: string; timeoutMs: number },
  c: LoraHttpCall,
): Promise<void> {
  const url = new URL(c.path, new URL(opts.baseUrl).origin).toString();
  await assertEgressAllowed(url);
  const res = await fetch(url, {
    method: c.method,
    headers: {
      "content-type": "application/json",
      ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
    },
    body: JSON.stringify(c.body),
    signal: AbortSignal.timeout(opts.timeoutMs),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${c.path} answered ${res.status}: ${text.slice(0, 300)}`);
  // An engine may answer 200 with SGLang's LoadLoRAAdapterReqOutput shape {success: false, error_message}.
  try {
    const j = JSON.parse(text) as { success?: unknown; error_message?: unknown };
    if (j && j.success === false) throw new Error(`${c.path}: ${String(j.error_message ?? "refused")}`);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
  }
}
