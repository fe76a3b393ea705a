// Task import: a Harbor folder or archive, or tool-call JSONL, into validated task specs. Errors name the
// file and field (taskError); nothing is written anywhere until every task of the set parsed.
import { entriesFromArchive, entriesFromFolder } from "./entries";
import { harborTasks } from "./harbor";
import type { TaskSpec } from "./spec";
import { toolCallTasks } from "./toolcall";

export type TaskSource =
  | { format: "harbor"; archive: Buffer; name?: string }
  | { format: "harbor"; folder: string }
  | { format: "jsonl"; text: string; name?: string };

export function parseTasks(source: TaskSource): TaskSpec[] {
  if (source.format === "jsonl") return toolCallTasks(source.text, source.name ?? "tasks.jsonl");
  const entries =
    "archive" in source
      ? entriesFromArchive(source.archive, source.name ?? "archive")
      : entriesFromFolder(source.folder);
  return harborTasks(entries);
}
