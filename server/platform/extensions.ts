// Operator-owned directories that configs may name files in. A custom reward, grader or loss module runs with a
// worker's privileges, so it loads only from EXTENSIONS_DIR (the operator puts reviewed code there); a config
// names it relative to that directory, it is resolved with realpath (symlinks followed) and must stay inside,
// and only module extensions load. Embedded checkpoints are checked the same way against MODELS_DIR (or DATA_DIR)
// at save. LoRA adapter folders that the proxy asks a serving engine to load (a trainer's acknowledged
// checkpointPath, with policy.loraAdapters) must be absolute and inside MODELS_DIR or ADAPTER_DIRS.
// Errors name the path as the config wrote it, never the absolute path on the host.
import { realpath } from "node:fs/promises";
import path from "node:path";
import { env, settings, type EnvSource } from "./env";

export const MODULE_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"] as const;

export class ExtensionPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ExtensionPathError";
  }
}

/** `child` is `dir` or below it (both already real paths). */
function inside(dir: string, child: string): boolean {
  const rel = path.relative(dir, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** The lexical checks every configured path gets before the disk is touched. */
function lexicalProblem(configured: string): string | null {
  if (!configured || configured.includes("\0")) return "is empty or holds a NUL byte";
  if (path.isAbsolute(configured) || path.win32.isAbsolute(configured)) return "must be relative, not absolute";
  if (configured.split(/[\\/]/).includes("..")) return "must not contain '..'";
  return null;
}

/**
 * The real path of a custom module named in a config, or an ExtensionPathError that says why not.
 * `dir` overrides EXTENSIONS_DIR (tests load fixtures from their own temporary folder).
 */
export async function resolveExtensionModule(
  configured: string,
  opts: { dir?: string; source?: EnvSource } = {},
): Promise<string> {
  const dir = opts.dir ?? settings("extensions", opts.source).EXTENSIONS_DIR;
  if (!dir) throw new ExtensionPathError("custom modules are off: the operator has not set EXTENSIONS_DIR");
  const lexical = lexicalProblem(configured);
  if (lexical) throw new ExtensionPathError(`module path ${JSON.stringify(configured)} ${lexical}`);
  if (!(MODULE_EXTENSIONS as readonly string[]).includes(path.extname(configured)))
    throw new ExtensionPathError(
      `module ${JSON.stringify(configured)} must be ${MODULE_EXTENSIONS.join(", ")} (inside EXTENSIONS_DIR)`,
    );
  let realDir: string;
  try {
    // turbopackIgnore: the operator's EXTENSIONS_DIR, known at run time only
    realDir = await realpath(/* turbopackIgnore: true */ dir);
  } catch {
    throw new ExtensionPathError("EXTENSIONS_DIR does not exist on this host");
  }
  let real: string;
  try {
    real = await realpath(path.resolve(realDir, configured));
  } catch {
    throw new ExtensionPathError(`module ${JSON.stringify(configured)} not found in EXTENSIONS_DIR`);
  }
  // A symlink inside the directory that points out of it is refused like a path that leaves it.
  if (!inside(realDir, real))
    throw new ExtensionPathError(`module ${JSON.stringify(configured)} leaves EXTENSIONS_DIR`);
  if (!(MODULE_EXTENSIONS as readonly string[]).includes(path.extname(real)))
    throw new ExtensionPathError(`module ${JSON.stringify(configured)} links to a file that is not a module`);
  return real;
}

/**
 * Why an embedded checkpoint path may not be saved, or null. It resolves against the working directory (as
 * the workers load it: "models/base") and must stay inside MODELS_DIR or DATA_DIR (where trained versions are
 * written), following symlinks where it exists.
 */
export async function modelDirProblem(configured: string, source?: EnvSource): Promise<string | null> {
  if (!configured || configured.includes("\0")) return "is empty or holds a NUL byte";
  const roots = await Promise.all(
    [settings("extensions", source).MODELS_DIR, env().DATA_DIR].map(async (d) => {
      const lexical = path.resolve(d);
      return { lexical, real: await realpath(lexical).catch(() => lexical) };
    }),
  );
  const lexical = path.resolve(configured);
  if (!roots.some((r) => inside(r.lexical, lexical) || inside(r.real, lexical)))
    return "must be inside MODELS_DIR or DATA_DIR";
  const real = await realpath(lexical).catch(() => null);
  if (real && !roots.some((r) => inside(r.real, real)))
    return "must be inside MODELS_DIR or DATA_DIR (a link leaves it)";
  return null;
}

/**
 * A Tinker sampler path (`save_weights_for_sampler(...).result().path`): a per-user Tinker experiment's user versions.
 * No path on any disk: the Tinker bridge's endpoint resolves it at Tinker, so ADAPTER_DIRS does not apply to it.
 */
export const TINKER_SAMPLER_PATH = /^tinker:\/\/[A-Za-z0-9._~:@!$&'()*+,;=%/-]+$/;

/**
 * Why a LoRA adapter folder may not be handed to a serving engine, or null. The engine resolves the path on its
 * own disk, so it must be absolute (no working directory to guess), without `..` segments or control
 * characters, and inside MODELS_DIR or one of ADAPTER_DIRS (unset: DATA_DIR). Where it exists on this host its
 * real path (symlinks followed) must stay inside too; an engine on another host is checked by the path alone.
 */
export async function adapterDirProblem(configured: string, source?: EnvSource): Promise<string | null> {
  if (!configured || /[\u0000-\u001f\u007f]/.test(configured)) return "is empty or holds a control character";
  if (!path.isAbsolute(configured)) return "must be an absolute path";
  if (configured.split(/[\\/]/).includes("..")) return "must not contain '..'";
  const ext = settings("extensions", source);
  const dirs = [ext.MODELS_DIR, ...(ext.ADAPTER_DIRS.length ? ext.ADAPTER_DIRS : [env().DATA_DIR])];
  const roots = await Promise.all(
    dirs.map(async (d) => {
      const lexical = path.resolve(d);
      return { lexical, real: await realpath(lexical).catch(() => lexical) };
    }),
  );
  const lexical = path.resolve(configured);
  if (!roots.some((r) => inside(r.lexical, lexical) || inside(r.real, lexical)))
    return "must be inside MODELS_DIR or ADAPTER_DIRS";
  const real = await realpath(lexical).catch(() => null);
  if (real && !roots.some((r) => inside(r.real, real)))
    return "must be inside MODELS_DIR or ADAPTER_DIRS (a link leaves it)";
  return null;
}
