// Custom graders, in the custom-reward style (server/judge/core/customReward.ts): a file whose default (or
// `grade`) export is an async `(item, reply) => { score: 0…1, detail? }`. The module's file name, mtime
// and size form the grader version, so editing the module starts a new series of scores. It loads only from
// the operator's EXTENSIONS_DIR (platform/extensions.ts), as the custom reward does.
import { stat } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { withTimeout } from "../../judge/core/resilience";
import { resolveExtensionModule } from "../../platform/extensions";
import { GradeError, type Grader, type GradeItem } from "./types";

const ResultSchema = z.object({
  score: z.number().min(0).max(1),
  detail: z.record(z.string(), z.unknown()).optional(),
});

export type CustomGradeFn = (item: GradeItem, reply: string) => unknown;

export async function loadCustomGrader(
  modulePath: string,
  opts: { dir?: string; timeoutMs?: number } = {},
): Promise<Grader> {
  const abs = await resolveExtensionModule(modulePath, opts);
  const info = await stat(abs);
  if (!info.isFile()) throw new Error(`custom grader module is not a file: ${modulePath}`);
  const tag = `${Math.floor(info.mtimeMs)}-${info.size}`;
  const mod = (await import(
    /* @vite-ignore */ /* webpackIgnore: true */ `${pathToFileURL(abs).href}?v=${tag}`
  )) as Record<string, unknown>;
  const fn = (typeof mod.default === "function" ? mod.default : mod.grade) as CustomGradeFn | undefined;
  if (typeof fn !== "function")
    throw new Error(`custom grader module exports no function (default or "grade"): ${modulePath}`);
  return {
    name: "custom",
    version: `custom:${path.basename(abs)}@${tag}`,
    cannotGrade: () => null,
    async grade(item, reply, signal) {
      let out: unknown;
      try {
        out = await withTimeout(opts.timeoutMs ?? 30_000, async () => fn(item, reply), signal);
      } catch (err) {
        throw new GradeError(`custom grader failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      const parsed = ResultSchema.safeParse(out);
      if (!parsed.success)
        throw new GradeError(
          `custom grader returned an invalid result: ${parsed.error.issues[0]?.message ?? "bad shape"}`,
        );
      return parsed.data;
    },
  };
}
