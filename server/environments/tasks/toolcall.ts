// Tool-call tasks as JSONL, one task per line: {"id", "prompt", "answer", "tools", "verifier"?, "lookup"?,
// "metadata"?}. The shape follows upstream's ReTool data (a prompt and a label scored by a strict boxed
// verifier); `tools` names what the agent may call, `lookup` the facts a `lookup` tool answers from.
import { z } from "zod";
import { taskError } from "./errors";
import { TASK_KEY, toolNameSchema, type ToolCallTask } from "./spec";

const lineSchema = z.strictObject({
  id: z.string().regex(TASK_KEY, "must be letters, digits, . _ / - (at most 128)"),
  prompt: z.string().trim().min(1).max(16_000),
  answer: z.string().trim().min(1).max(1000),
  tools: z.array(toolNameSchema).max(8).default([]),
  verifier: z.enum(["boxed", "exact"]).default("boxed"),
  lookup: z.record(z.string().max(200), z.string().max(2000)).default({}),
  metadata: z.record(z.string(), z.unknown()).default({}),
});

export const MAX_JSONL_LINES = 100_000;

export function toolCallTasks(jsonl: string, file = "tasks.jsonl"): ToolCallTask[] {
  const tasks: ToolCallTask[] = [];
  const seen = new Set<string>();
  const lines = jsonl.split("\n");
  if (lines.length > MAX_JSONL_LINES) throw taskError(file, null, `has more than ${MAX_JSONL_LINES} lines`);
  lines.forEach((raw, i) => {
    const where = `${file} line ${i + 1}`;
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw taskError(where, null, `is not JSON (${(e as Error).message})`);
    }
    const parsed = lineSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw taskError(where, issue.path.map(String).join(".") || "(line)", issue.message);
    }
    const t = parsed.data;
    if (seen.has(t.id)) throw taskError(where, "id", `${t.id} is used by an earlier line`);
    if (t.tools.includes("lookup") && Object.keys(t.lookup).length === 0)
      throw taskError(where, "lookup", "is empty although the task uses the lookup tool");
    seen.add(t.id);
    tasks.push({
      kind: "toolcall",
      key: t.id,
      instruction: t.prompt,
      answer: t.answer,
      verifier: t.verifier,
      tools: t.tools,
      lookup: t.lookup,
      metadata: t.metadata,
    });
  });
  if (tasks.length === 0) throw taskError(file, null, "holds no task");
  return tasks;
}
