// The operator's settings for external trainers (the environment of the train worker and the web process):
// the platform's `supervisor` section (server/platform/env.ts) with the two values only the run domain can
// check (the slime profile id, the local-process role commands), and what is built from them.
import { z } from "zod";
import { settings, type EnvSource, type Settings } from "../platform/env";
import { LocalProcessConfigSchema, type TrainerBackend } from "./backends/backend";
import path from "node:path";
import { HF_LOCAL_BACKEND_KIND, HfLocalBackend, HfLocalSettingsSchema } from "./backends/hfLocal/backend";
import { LOCAL_PROCESS_BACKEND_KIND, LocalProcessBackend } from "./backends/localProcess/backend";
import { RAY_SLIME_BACKEND_KIND, RaySlimeBackend } from "./backends/ray/backend";
import { SLIME_PROFILE_IDS } from "./backends/slime/profiles";
import { TINKER_BACKEND_KIND, TinkerBackend, TinkerSettingsSchema } from "./backends/tinker/backend";

const DomainSchema = z.object({
  SLIME_PROFILE: z.enum(SLIME_PROFILE_IDS).optional(),
  LOCAL_PROCESS_ROLES: LocalProcessConfigSchema.shape.roles.optional(),
});

export type SupervisorSettings = Omit<Settings<"supervisor">, keyof z.output<typeof DomainSchema>> &
  z.output<typeof DomainSchema>;

/** Settings from the process environment (or `source`, e.g. in tests); empty variables count as unset. Throws a readable error. */
export function supervisorSettings(source?: EnvSource): SupervisorSettings {
  const base = settings("supervisor", source);
  const domain = DomainSchema.safeParse(base);
  if (!domain.success) {
    throw new Error(
      `Invalid supervisor settings: ${domain.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  return { ...base, SLIME_PROFILE: domain.data.SLIME_PROFILE, LOCAL_PROCESS_ROLES: domain.data.LOCAL_PROCESS_ROLES };
}

export function controlPlaneUrl(s: SupervisorSettings): string {
  return s.CONTROL_PLANE_URL ?? s.PUBLIC_URL ?? `http://127.0.0.1:${s.WEB_PORT}`;
}

export function createBackends(s: SupervisorSettings): Map<string, TrainerBackend> {
  return new Map<string, TrainerBackend>([
    [RAY_SLIME_BACKEND_KIND, new RaySlimeBackend()],
    [LOCAL_PROCESS_BACKEND_KIND, new LocalProcessBackend()],
    [TINKER_BACKEND_KIND, new TinkerBackend(tinkerSettings(s))],
    [HF_LOCAL_BACKEND_KIND, new HfLocalBackend(hfLocalSettings(s))],
  ]);
}

export function hfLocalSettings(s: SupervisorSettings) {
  return HfLocalSettingsSchema.parse({
    python: s.HF_LOCAL_PYTHON,
    model: s.HF_LOCAL_MODEL,
    gpu: s.HF_LOCAL_GPU,
    gpuMemoryGb: s.HF_LOCAL_GPU_MEMORY_GB,
    maxBatch: s.HF_LOCAL_MAX_BATCH,
    maxContext: s.HF_LOCAL_MAX_CONTEXT,
    microBatch: s.HF_LOCAL_MICRO_BATCH,
    finetune: s.HF_LOCAL_FINETUNE,
    serve: { port: s.HF_LOCAL_SERVE_PORT, host: s.HF_LOCAL_SERVE_HOST, url: s.HF_LOCAL_SERVE_URL },
    saveDir: s.HF_LOCAL_SAVE_DIR ?? path.join(process.cwd(), ".data", "hf-local"),
  });
}

function tinkerSettings(s: SupervisorSettings) {
  return TinkerSettingsSchema.parse({
    apiKey: s.TINKER_API_KEY,
    baseModel: s.TINKER_BASE_MODEL,
    loss: s.TINKER_LOSS,
    python: s.TINKER_PYTHON,
    serve:
      s.TINKER_SERVE_PORT !== undefined
        ? { port: s.TINKER_SERVE_PORT, host: s.TINKER_SERVE_HOST, url: s.TINKER_SERVE_URL }
        : undefined,
  });
}
