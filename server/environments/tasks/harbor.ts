// The Harbor task layout (https://harborframework.com/docs/tasks): task.toml, instruction.md,
// tests/test.sh (writes /logs/verifier/reward.txt or reward.json), optional solution/solve.sh and
// environment/. A folder or archive may hold one task at its top or several, one per folder holding a
// task.toml. local-bwrap has no image build: the task runs on the host's read-only system with the files of
// environment/ (its Dockerfile aside) in /app, and what that cannot honour is kept as a warning.
import path from "node:path";
import { parse as parseToml, TomlError } from "smol-toml";
import { z } from "zod";
import { bytesFile, type SandboxFile } from "../sandbox/files";
import type { Entries } from "./entries";
import { taskError } from "./errors";
import { ENV_NAME, TASK_KEY, type TerminalTask } from "./spec";

const env = z.record(z.string().regex(ENV_NAME, "must be an environment variable name"), z.string());
const seconds = z
  .number()
  .positive()
  .max(24 * 3600);

/** The task.toml fields we use; others (and unknown sections) are kept in metadata or ignored, as Harbor does. */
const taskTomlSchema = z.looseObject({
  version: z.string().optional(),
  schema_version: z.string().optional(),
  task: z.looseObject({ name: z.string().optional(), description: z.string().optional() }).optional(),
  metadata: z.record(z.string(), z.unknown()).default({}),
  verifier: z
    .looseObject({ timeout_sec: seconds.default(600), env: env.default({}) })
    .default({ timeout_sec: 600, env: {} }),
  agent: z.looseObject({ timeout_sec: seconds.default(600) }).default({ timeout_sec: 600 }),
  environment: z
    .looseObject({
      allow_internet: z.boolean().default(true),
      docker_image: z.string().optional(),
      cpus: z.number().positive().optional(),
      memory_mb: z.number().positive().optional(),
    })
    .default({ allow_internet: true }),
});

const DOCKER_FILES = new Set(["Dockerfile", "docker-compose.yaml", "docker-compose.yml", ".dockerignore"]);
const MAX_TASK_BYTES = 8 * 1024 * 1024;

function under(entries: Entries, dir: string): SandboxFile[] {
  const prefix = dir ? `${dir}/` : "";
  return [...entries]
    .filter(([p]) => p.startsWith(prefix))
    .map(([p, e]) => bytesFile(p.slice(prefix.length), e.bytes, e.executable));
}

/** A text file of the task; `shown` is its name in errors (with the task's folder). */
function text(entries: Entries, file: string, shown: string): string {
  const e = entries.get(file);
  if (!e) throw taskError(shown, null, "is missing");
  const s = e.bytes.toString("utf8");
  if (!Buffer.from(s, "utf8").equals(e.bytes)) throw taskError(shown, null, "is not UTF-8 text");
  return s;
}

/** Every Harbor task in `entries` (task roots are the folders holding a task.toml). */
export function harborTasks(entries: Entries): TerminalTask[] {
  const roots = [...entries.keys()]
    .filter((p) => p === "task.toml" || p.endsWith("/task.toml"))
    .map((p) => path.posix.dirname(p))
    .map((d) => (d === "." ? "" : d))
    .sort();
  if (roots.length === 0) throw taskError("task.toml", null, "is missing: no folder holds a Harbor task.toml");
  const nested = roots.find((r) => roots.some((o) => o !== r && (o === "" || r.startsWith(`${o}/`))));
  if (nested !== undefined) throw taskError(`${nested}/task.toml`, null, "is inside another task's folder");
  const tasks = roots.map((root) => harborTask(entries, root));
  const seen = new Set<string>();
  for (const t of tasks) {
    if (seen.has(t.key)) throw taskError("task.toml", "task.name", `two tasks are named ${t.key}`);
    seen.add(t.key);
  }
  return tasks;
}

export function harborTask(all: Entries, root: string): TerminalTask {
  const j = (p: string) => (root ? `${root}/${p}` : p);
  const own: Entries = new Map(
    [...all]
      .filter(([p]) => !root || p.startsWith(`${root}/`))
      .map(([p, e]) => [root ? p.slice(root.length + 1) : p, e]),
  );
  const size = [...own.values()].reduce((n, e) => n + e.bytes.length, 0);
  if (size > MAX_TASK_BYTES) throw taskError(root || ".", null, `holds more than ${MAX_TASK_BYTES} bytes`);

  let raw: unknown;
  try {
    raw = parseToml(text(own, "task.toml", j("task.toml")));
  } catch (e) {
    if (e instanceof TomlError) throw taskError(j("task.toml"), `line ${e.line}`, e.message.split("\n")[0]);
    throw taskError(j("task.toml"), null, (e as Error).message);
  }
  const parsed = taskTomlSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw taskError(j("task.toml"), issue.path.map(String).join("."), issue.message);
  }
  const toml = parsed.data;
  const key = toml.task?.name ?? (root ? root.split("/").pop()! : "task");
  if (!TASK_KEY.test(key))
    throw taskError(
      j("task.toml"),
      toml.task?.name ? "task.name" : null,
      `task name ${JSON.stringify(key)} is not a valid key (letters, digits, . _ / -)`,
    );

  const instruction = text(own, "instruction.md", j("instruction.md")).trim();
  if (!instruction) throw taskError(j("instruction.md"), null, "is empty");
  if (!own.has("tests/test.sh")) throw taskError(j("tests/test.sh"), null, "is missing: the verifier's entry point");
  const solutionFiles = under(own, "solution");
  if (solutionFiles.length && !own.has("solution/solve.sh"))
    throw taskError(j("solution/solve.sh"), null, "is missing although solution/ exists");

  const warnings: string[] = [];
  const dockerfile = own.get("environment/Dockerfile")?.bytes.toString("utf8");
  if (dockerfile && /^\s*RUN\s/im.test(dockerfile))
    warnings.push(
      "environment/Dockerfile has RUN steps: local-bwrap does not build images (the host's system is used)",
    );
  if (toml.environment.docker_image)
    warnings.push(`environment.docker_image ${toml.environment.docker_image} is not used by local-bwrap`);
  if (toml.environment.allow_internet)
    warnings.push("environment.allow_internet is true (Harbor's default): local-bwrap runs without network");

  return {
    kind: "terminal",
    key,
    instruction,
    workspace: under(own, "environment").filter((f) => !DOCKER_FILES.has(f.path)),
    tests: under(own, "tests"),
    solution: solutionFiles.length ? solutionFiles : null,
    verifier: { command: "bash /tests/test.sh", timeoutSeconds: toml.verifier.timeout_sec, env: toml.verifier.env },
    agentTimeoutSeconds: toml.agent.timeout_sec,
    metadata: { ...toml.metadata, ...(toml.task?.description ? { description: toml.task.description } : {}) },
    warnings,
    container:
      dockerfile !== undefined || toml.environment.docker_image
        ? { image: toml.environment.docker_image ?? null, dockerfile: dockerfile ?? null }
        : null,
  };
}
