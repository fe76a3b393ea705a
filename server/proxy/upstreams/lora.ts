// The requests that drive a multi-LoRA engine for per-user adapters: load an adapter after a training
// step, unload a retired one, and name the user's adapter on each chat request. The field names are the
// engines' own (tests/fixtures/lora/*.json, extracted from their source by
// integrations/contracts/extract_lora_routes.py; tests/unit/proxy/lora.test.ts checks every call here
// against them):
//   - SGLang: POST /load_lora_adapter {lora_name, lora_path, pinned?}, POST /unload_lora_adapter
//     {lora_name}; a request picks an adapter with `lora_path: <lora_name>`.
//   - vLLM (server started with VLLM_ALLOW_RUNTIME_LORA_UPDATING): POST /v1/load_lora_adapter
//     {lora_name, lora_path}, POST /v1/unload_lora_adapter {lora_name}; a request picks an adapter by
//     sending its name as `model`.
import { z } from "zod";

export type LoraEngine = "sglang" | "vllm";

export interface LoraHttpCall {
  method: "POST";
  path: string;
  body: Record<string, unknown>;
}

/**
 * An adapter name reaches the engine as a registry key and, on vLLM, as the `model` of every request
 * (and in /v1/models): keep it to a plain token so it cannot collide with SGLang's `base:adapter`
 * syntax, carry a path, or smuggle whitespace into logs.
 */
export const adapterNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, "adapter name: letters, digits, '.', '_', '-' (max 128)");

/** Where the engine reads the adapter (a PEFT folder on its disk, or a URI it resolves): one line, no NUL. */
export const adapterPathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((s) => !/[\u0000-\u001f]/.test(s), "adapter path must not contain control characters");

/** The engine-side name of one user's adapter version: stable, unique per (user, version). */
export function adapterNameFor(userKey: string, version: number): string {
  if (!Number.isInteger(version) || version < 1) throw new Error("adapter version must be a positive integer");
  return adapterNameSchema.parse(`user-${userKey}-v${version}`);
}

export function loadAdapterCall(
  engine: LoraEngine,
  adapter: { name: string; path: string; pinned?: boolean },
): LoraHttpCall {
  const lora_name = adapterNameSchema.parse(adapter.name);
  const lora_path = adapterPathSchema.parse(adapter.path);
  if (engine === "sglang") {
    // `pinned` keeps a hot user's adapter out of SGLang's LRU eviction.
    const body = adapter.pinned ? { lora_name, lora_path, pinned: true } : { lora_name, lora_path };
    return { method: "POST", path: "/load_lora_adapter", body };
  }
  if (adapter.pinned) throw new Error("vLLM's load_lora_adapter has no pinned option");
  return { method: "POST", path: "/v1/load_lora_adapter", body: { lora_name, lora_path } };
}

export function unloadAdapterCall(engine: LoraEngine, name: string): LoraHttpCall {
  const lora_name = adapterNameSchema.parse(name);
  return {
    method: "POST",
    path: engine === "sglang" ? "/unload_lora_adapter" : "/v1/unload_lora_adapter",
    body: { lora_name },
  };
}

/**
 * A chat-completions body that the engine serves with `adapter` (a loaded adapter's name), or with the
 * base model when `adapter` is null. Returns a new object; the client's body is not changed. A
 * `lora_path` the client sent is dropped: the proxy picks the adapter from the caller's identity, and a
 * client naming another user's adapter would read a model trained on that user's turns.
 */
export function withAdapter(
  engine: LoraEngine,
  body: Record<string, unknown>,
  adapter: string | null,
): Record<string, unknown> {
  const { lora_path: _dropped, ...rest } = body;
  if (adapter === null) return rest;
  const name = adapterNameSchema.parse(adapter);
  return engine === "sglang" ? { ...rest, lora_path: name } : { ...rest, model: name };
}

/**
 * The text an engine answers a request naming an adapter it does not hold (anymore: SGLang's registry evicts its
 * least recently used adapters), with the adapter's name in it, from the extracted contracts' `notLoaded`:
 *   - SGLang (lora_registry.py `acquire`): a ValueError "The following requested LoRA adapters are not loaded:
 *     <name>\n…", whose status its OpenAI layer decides (400 or 500 by version), so only the text is matched;
 *   - vLLM (serving.py `_check_model`): 404 "The model `<name>` does not exist.".
 */
export function notLoadedText(engine: LoraEngine, name: string): string {
  return engine === "sglang"
    ? `The following requested LoRA adapters are not loaded: ${name}`
    : `The model \`${name}\` does not exist.`;
}

/** Whether an engine's error answer says that adapter `name` is not loaded (and loading it again may serve it). */
export function isNotLoaded(engine: LoraEngine, status: number, text: string, name: string): boolean {
  if (engine === "vllm" && status !== 404) return false;
  // Matched in the raw JSON text: up to the name, the message has nothing JSON escapes (names are plain tokens). The
  // name must end there: "ua-a" is not named by a message about "ua-ab".
  const at = text.indexOf(notLoadedText(engine, name));
  if (at < 0) return false;
  const next = text.charAt(at + notLoadedText(engine, name).length);
  return !/[A-Za-z0-9._-]/.test(next);
}
