// The one in-memory shape of a task, whatever format it came from (Harbor folder, JSONL line). Stored as
// JSON on the Task row and parsed back with these schemas.
import { z } from "zod";
import { sandboxFileSchema } from "../sandbox/files";

export const TASK_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$/;
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Tools a tool-call task may ask for; each environment offers a subset. */
export const TOOL_NAMES = ["calc", "lookup"] as const;
export const toolNameSchema = z.enum(TOOL_NAMES);

export const terminalTaskSchema = z.object({
  kind: z.literal("terminal"),
  key: z.string().regex(TASK_KEY),
  instruction: z.string().min(1),
  /** Put in /app before the agent starts (environment/ minus its Dockerfile). */
  workspace: z.array(sandboxFileSchema),
  /** The verifier's files, mounted at /tests for the verifier only. */
  tests: z.array(sandboxFileSchema).min(1),
  /** The reference solution (solution/, run as `bash /solution/solve.sh`), when the task ships one. */
  solution: z.array(sandboxFileSchema).nullable(),
  verifier: z.object({
    command: z.string(),
    timeoutSeconds: z.number().positive(),
    env: z.record(z.string().regex(ENV_NAME), z.string()),
  }),
  agentTimeoutSeconds: z.number().positive(),
  metadata: z.record(z.string(), z.unknown()),
  /** What this sandbox cannot honour (a Dockerfile's RUN steps, internet access). */
  warnings: z.array(z.string()),
  /**
   * The task's own image, for the `docker` provider: `environment.docker_image` to pull, or
   * environment/Dockerfile to build (its context: `workspace` plus the Dockerfile). Null: no image.
   */
  container: z
    .object({ image: z.string().min(1).nullable(), dockerfile: z.string().nullable() })
    .nullable()
    .default(null),
});
export type TerminalTask = z.output<typeof terminalTaskSchema>;

export const toolCallTaskSchema = z.object({
  kind: z.literal("toolcall"),
  key: z.string().regex(TASK_KEY),
  instruction: z.string().min(1),
  answer: z.string().min(1),
  /** boxed: the last \boxed{…} of the final answer equals `answer` (upstream's strict math verifier); exact: the whole final message does. */
  verifier: z.enum(["boxed", "exact"]),
  tools: z.array(toolNameSchema),
  /** The facts the `lookup` tool answers from. */
  lookup: z.record(z.string(), z.string()),
  metadata: z.record(z.string(), z.unknown()),
});
export type ToolCallTask = z.output<typeof toolCallTaskSchema>;

export const taskSpecSchema = z.discriminatedUnion("kind", [terminalTaskSchema, toolCallTaskSchema]);
export type TaskSpec = z.output<typeof taskSpecSchema>;
