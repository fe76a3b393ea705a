// The launch preview the console shows before a run starts: the exact command (secrets hidden) and notes on
// where it runs, for the experiment's trainer backend.
import { assertCan, type Principal } from "../access/principal";
import { loadExperimentFor } from "../access/scope";
import { ExperimentConfigSchema } from "../config/experimentConfig";
import { assertGpuPlan, planRoleGroups } from "../gpu/plan";
import { db } from "../platform/db/client";
import { errorText } from "../platform/errors";
import { LOCAL_PROCESS_BACKEND_KIND } from "./backends/localProcess/backend";
import { RAY_SLIME_BACKEND_KIND } from "./backends/ray/backend";
import { buildSlimeCommand, formatCommand, shellQuote } from "./backends/slime/args";
import { TINKER_BACKEND_KIND, tinkerCommand } from "./backends/tinker/backend";
import { buildRunLaunch } from "./launch";
import { supervisorSettings, tinkerSettings, type SupervisorSettings } from "./settings";

export interface LaunchPreview {
  experimentId: string;
  trainerBackend: string;
  /** The exact command, secrets hidden; null when it cannot be built (see error). */
  command: string | null;
  error: string | null;
  notes: string[];
  /** Tinker: the run trains on the user's own Tinker account. */
  needsUserKey: boolean;
  userKeyConfigured: boolean;
}

const PLACEHOLDER_RUN_ID = "<run id>";
const PLACEHOLDER_KEY = "<issued at launch>";

export async function launchPreview(p: Principal, experimentId: string, settings: SupervisorSettings = supervisorSettings()): Promise<LaunchPreview> {
  assertCan(p, "read");
  const e = await loadExperimentFor(p, experimentId);
  const config = ExperimentConfigSchema.parse(e.config);
  const kind = config.trainer.backend as string;
  const out: LaunchPreview = { experimentId: e.id, trainerBackend: kind, command: null, error: null, notes: [], needsUserKey: kind === TINKER_BACKEND_KIND, userKeyConfigured: !!settings.TINKER_API_KEY };
  if (kind === "embedded") {
    out.notes.push("Trains on CPU inside the control plane's train worker: nothing is launched.");
    return out;
  }
  try {
    const last = await db().run.findFirst({ where: { experimentId: e.id }, orderBy: { number: "desc" }, select: { number: true } });
    const launch = buildRunLaunch({ runId: PLACEHOLDER_RUN_ID, runNumber: (last?.number ?? 0) + 1, experimentSlug: e.slug, config }, settings, PLACEHOLDER_KEY);
    out.notes.push(`The trainer reaches the control plane at ${launch.config.controlPlaneUrl} with a write key bound to this experiment, issued at launch and revoked when the run ends.`);
    if (kind === RAY_SLIME_BACKEND_KIND) {
      const cmd = buildSlimeCommand(launch);
      out.command = formatCommand(cmd);
      out.notes.push(`Submitted to the Ray Jobs API at ${launch.config.ray?.address} with submission_id = the run id, so a retried launch never starts twice.`);
      out.notes.push(`Target: ${cmd.profile.label}; ${cmd.backend === "fsdp" ? "FSDP (LoRA)" : "Megatron"} backend; model ${cmd.model ? `${cmd.model.name} (architecture from ${cmd.model.source})` : "custom (architecture arguments from SLIME_EXTRA_ARGS)"}.`);
      out.notes.push(`GPUs: ${cmd.plan.summary.text}`);
    } else if (kind === LOCAL_PROCESS_BACKEND_KIND) {
      const local = launch.config.localProcess;
      if (!local) throw new Error("set LOCAL_PROCESS_ROLES (JSON role commands) for the train worker");
      const groups = planRoleGroups(assertGpuPlan(launch.config.gpu));
      out.command = groups
        .map((g) => {
          const spec = local.roles[g.role];
          const argv = spec ? spec.command.map(shellQuote).join(" ") : "(no command for this role)";
          return `# ${g.label}\nCUDA_VISIBLE_DEVICES=${g.devices.map((d) => d.gpu).join(",")} ${argv}`;
        })
        .join("\n");
      out.notes.push("Each role runs in its own process group on this machine; stopping the run ends exactly those groups.");
    } else if (kind === TINKER_BACKEND_KIND) {
      out.command = formatCommand(tinkerCommand(launch, tinkerSettings(settings)));
      out.notes.push("Trains on Tinker (remote LoRA service), billed to your own Tinker account.");
      if (!settings.TINKER_API_KEY) out.notes.push("TINKER_API_KEY is not set for the control plane: a launch would fail.");
      out.notes.push(
        settings.TINKER_SERVE_PORT !== undefined
          ? `The bridge serves the trained weights on port ${settings.TINKER_SERVE_PORT} and reports it as the run's rollout URL: the proxy forwards this experiment's traffic there while the run is live.`
          : "The proxy keeps serving the configured policy: set TINKER_SERVE_PORT to serve the trained weights through it.",
      );
    } else {
      throw new Error(`no trainer backend '${kind}' in this control plane`);
    }
  } catch (err) {
    out.error = errorText(err);
  }
  return out;
}
