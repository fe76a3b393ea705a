// Secrets never leave the server: they are stripped from configs on write (encrypted into
// Experiment.secrets) and reported only as "set" on read.
import { decryptSecret, encryptSecret } from "../access/crypto";
import { SECRET_PATHS, type ExperimentConfig } from "./experimentConfig";

export type SealedSecrets = Record<string, string>;

type Obj = Record<string, unknown>;

function getAt(obj: Obj, path: readonly string[]): unknown {
  return path.reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Obj)[k] : undefined), obj);
}

function parentOf(obj: Obj, path: readonly string[]): Obj | undefined {
  const p = getAt(obj, path.slice(0, -1));
  return p && typeof p === "object" ? (p as Obj) : undefined;
}

function origin(url: unknown): string | null {
  if (typeof url !== "string") return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * Moves secrets out of `config` (mutating a copy). An omitted secret keeps its previously stored value only while
 * its endpoint (the `baseUrl` beside it) stays on the same origin as in `previousConfig`: a URL edit to another
 * host must send the key again, or the stored key is dropped (never sent to a host it was not given for).
 * `cleared` names the secrets dropped that way, for the audit entry.
 */
export function sealSecrets(
  config: ExperimentConfig,
  previous: SealedSecrets = {},
  previousConfig?: unknown,
): { config: ExperimentConfig; secrets: SealedSecrets; cleared: string[] } {
  const copy = structuredClone(config) as unknown as Obj;
  const secrets: SealedSecrets = {};
  const cleared: string[] = [];
  for (const path of SECRET_PATHS) {
    const id = path.join(".");
    const parent = parentOf(copy, path);
    const value = parent?.[path[path.length - 1]!];
    if (parent) delete parent[path[path.length - 1]!];
    if (!parent) continue; // the backend kind no longer has this secret
    if (typeof value === "string" && value !== "") secrets[id] = encryptSecret(value);
    else if (value === undefined && previous[id]) {
      const before =
        previousConfig && typeof previousConfig === "object" ? parentOf(previousConfig as Obj, path) : undefined;
      if (origin(before?.baseUrl) === origin(parent.baseUrl)) secrets[id] = previous[id]!;
      else cleared.push(id);
    }
  }
  return { config: copy as unknown as ExperimentConfig, secrets, cleared };
}

export function secretsSet(secrets: SealedSecrets): string[] {
  return Object.keys(secrets).sort();
}

/** Server-side only (workers calling upstreams): the config with secrets decrypted in place. */
export function unsealConfig(config: ExperimentConfig, secrets: SealedSecrets): ExperimentConfig {
  const copy = structuredClone(config) as unknown as Obj;
  for (const path of SECRET_PATHS) {
    const sealed = secrets[path.join(".")];
    const parent = parentOf(copy, path);
    if (sealed && parent) parent[path[path.length - 1]!] = decryptSecret(sealed);
  }
  return copy as unknown as ExperimentConfig;
}
