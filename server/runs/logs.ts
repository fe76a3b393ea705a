// Trainer logs: in-process trainers' (local processes, the Tinker bridge) saved by the train worker under
// DATA_DIR/runs/<id>/trainer.log, and the logs tail the API serves (Ray's own logs for a Ray run).
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { type Principal } from "../access/principal";
import { loadRunFor } from "../access/scope";
import { env } from "../platform/env";
import { errorText } from "../platform/errors";
import { tailLines } from "./backends/backend";
import { RAY_SLIME_BACKEND_KIND, RaySlimeBackend } from "./backends/ray/backend";
import { handleFor } from "./launch";
import { supervisorSettings, type SupervisorSettings } from "./settings";

export function runLogPath(runId: string, dataDir = env().DATA_DIR): string {
  return path.join(dataDir, "runs", runId, "trainer.log");
}

/** Lines of an in-process trainer's output kept for the API. */
export const SAVED_LOG_LINES = 5000;

export async function saveLogs(file: string, text: string): Promise<void> {
  if (!text) return;
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

export interface RunLogs {
  runId: string;
  trainerBackend: string;
  /** ray: read from the Ray Jobs API now; file: saved by the train worker; none: nothing to show. */
  source: "ray" | "file" | "none";
  text: string;
  note: string | null;
}

export async function runLogs(
  p: Principal,
  runId: string,
  tail: number,
  settings: SupervisorSettings = supervisorSettings(),
): Promise<RunLogs> {
  const run = await loadRunFor(p, runId);
  const base = { runId, trainerBackend: run.trainerBackend };
  if (run.trainerBackend === "embedded") {
    return {
      ...base,
      source: "none",
      text: "",
      note: "Embedded runs train inside the train worker: see its output and the run's metrics.",
    };
  }
  let note: string | null = null;
  if (run.trainerBackend === RAY_SLIME_BACKEND_KIND && run.externalJobId) {
    try {
      return {
        ...base,
        source: "ray",
        text: await new RaySlimeBackend().logs(handleFor(run, settings), { tail }),
        note: null,
      };
    } catch (err) {
      note = `Ray's logs are not available now: ${errorText(err)}`;
    }
  }
  try {
    return { ...base, source: "file", text: tailLines(await readFile(runLogPath(runId), "utf8"), tail), note };
  } catch {
    return {
      ...base,
      source: "none",
      text: "",
      note: note ?? (run.externalJobId ? "No logs saved yet." : "The run has not been launched yet."),
    };
  }
}
