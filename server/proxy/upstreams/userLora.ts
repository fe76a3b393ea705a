// Per-user adapters on a multi-LoRA engine (personalization "per-user" with policy.loraAdapters): each user's
// promoted version is loaded under a name of its own, `ua-<adapter row id>` (unique per user and version, and
// carrying no user id into the engine's logs), and that name goes on that user's requests only. The proxy keeps
// at most `maxLoaded` of them loaded and unloads its least recently used one first; the engine may still drop one
// (SGLang's own LRU, a restart), which the request path sees as a not-loaded answer and repairs by loading again
// (openaiHttp.ts). Calls and errors are lora.ts's, checked against the engines' extracted contracts.
import { adapterDirProblem, TINKER_SAMPLER_PATH } from "../../platform/extensions";
import { adapterNameSchema, loadAdapterCall, unloadAdapterCall, type LoraEngine } from "./lora";
import { engineCall } from "./loraServing";
import type { EngineAdapter } from "./types";

export interface UserLoraOptions {
  engine: LoraEngine;
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
  maxLoaded: number;
}

export const DEFAULT_MAX_LOADED = 8;

export class UserLoraRouter {
  /** names this proxy loaded, least recently used first */
  private readonly loaded = new Map<string, true>();
  /** one load per name at a time: concurrent first requests of a user wait for the same load */
  private readonly loading = new Map<string, Promise<void>>();
  /** the owner of each loaded name, when known */
  private readonly owners = new Map<string, string>();

  constructor(readonly opts: UserLoraOptions) {}

  get engine(): LoraEngine {
    return this.opts.engine;
  }

  nameOf(a: EngineAdapter): string {
    return adapterNameSchema.parse(`ua-${a.id}`);
  }

  /** The names loaded now, least recently used first (the Users page and tests read it). */
  loadedNames(): string[] {
    return [...this.loaded.keys()];
  }

  /** The adapter's engine-side name, loaded first when this proxy has not loaded it (or the engine dropped it). */
  async ensure(a: EngineAdapter): Promise<string> {
    const name = this.nameOf(a);
    if (a.owner) this.owners.set(name, a.owner);
    if (this.loaded.has(name)) {
      this.loaded.delete(name);
      this.loaded.set(name, true);
      return name;
    }
    let p = this.loading.get(name);
    if (!p) {
      p = this.load(name, a.path).finally(() => this.loading.delete(name));
      this.loading.set(name, p);
    }
    await p;
    return name;
  }

  /**
   * Unload every adapter of `owner`: a user deleted, or served the base again, leaves no model trained on their turns
   * in the engine. Not on a new version: requests still in flight on the old one would lose it.
   */
  async release(owner: string): Promise<void> {
    for (const [name, o] of [...this.owners]) {
      if (o !== owner) continue;
      this.owners.delete(name);
      if (!this.loaded.delete(name)) continue;
      await this.call(unloadAdapterCall(this.opts.engine, name)).catch(() => {});
    }
  }

  /** The engine answered that `name` is not loaded: forget it, so the next ensure loads it again. */
  forget(name: string): void {
    this.loaded.delete(name);
  }

  private async load(name: string, path: string): Promise<void> {
    // The path came from a stored row: checked at use against the operator's ADAPTER_DIRS, as at registration; a
    // Tinker sampler path (registered only for a Tinker experiment) is no folder: the bridge's endpoint resolves it.
    const problem = TINKER_SAMPLER_PATH.test(path) ? null : await adapterDirProblem(path);
    if (problem) throw new Error(`adapter folder ${problem}`);
    while (this.loaded.size >= this.opts.maxLoaded) {
      const lru = this.loaded.keys().next().value as string;
      this.loaded.delete(lru);
      this.owners.delete(lru);
      // SGLang waits for the adapter's requests in flight before it unloads; an adapter the engine already
      // dropped is no reason to refuse the next user.
      await this.call(unloadAdapterCall(this.opts.engine, lru)).catch(() => {});
    }
    const load = loadAdapterCall(this.opts.engine, { name, path });
    try {
      await this.call(load);
    } catch {
      // The engine may hold the name already (loaded before this proxy restarted): unload it and load once more.
      await this.call(unloadAdapterCall(this.opts.engine, name)).catch(() => {});
      await this.call(load);
    }
    this.loaded.set(name, true);
  }

  private call(c: ReturnType<typeof loadAdapterCall>): Promise<void> {
    return engineCall(this.opts, c);
  }
}
