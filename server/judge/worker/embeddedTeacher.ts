// Teacher log-probs from the embedded policy engine: the frozen base checkpoint scores the recorded
// response under the hinted context. One engine per checkpoint per process, loaded on first use and
// never swapped, so the teacher stays frozen while the trained policy moves.
import path from "node:path";
import { z } from "zod";
import { EmbeddedEngine } from "../../engine/engine";
import { chatMessageSchema, toolDefSchema } from "../../engine/tokenizer";
import { BadResponseError } from "../core/http";
import type { TeacherScorer } from "../core/teacherClients";

const engines = new Map<string, Promise<EmbeddedEngine>>();

/** The cached engine for a checkpoint directory (a failed load is forgotten: the checkpoint may appear later). */
export function teacherEngine(checkpointDir: string): Promise<EmbeddedEngine> {
  let engine = engines.get(checkpointDir);
  if (!engine) {
    engine = (async () => {
      const e = new EmbeddedEngine();
      await e.load(checkpointDir);
      return e;
    })();
    engines.set(checkpointDir, engine);
    engine.catch(() => engines.delete(checkpointDir));
  }
  return engine;
}

const MessagesSchema = z.array(chatMessageSchema);
const ToolsSchema = z.array(toolDefSchema);

/** `checkpoint` is resolved against `baseDir` (the repository root when the worker runs from it). */
export function createEmbeddedTeacher(checkpoint: string, baseDir = process.cwd()): TeacherScorer {
  const dir = path.resolve(baseDir, checkpoint);
  return {
    kind: "embedded",
    endpoint: `embedded:${dir}`,
    async score(messages, response, { tools } = {}) {
      const parsed = MessagesSchema.safeParse(messages);
      if (!parsed.success) throw new BadResponseError(`the embedded teacher cannot render these messages: ${parsed.error.issues[0]?.message}`);
      const toolDefs = tools && tools.length > 0 ? ToolsSchema.safeParse(tools) : null;
      if (toolDefs && !toolDefs.success) throw new BadResponseError("the embedded teacher cannot render these tool definitions");
      const engine = await teacherEngine(dir);
      const scored = await engine.scoreChat(parsed.data, response, { tools: toolDefs?.data });
      return scored.logprobs;
    },
  };
}
