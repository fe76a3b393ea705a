// Teacher log-probs from the embedded policy engine: the frozen base checkpoint scores the recorded
// response under the hinted context. One engine per checkpoint per process, loaded on first use and
// never swapped, so the teacher stays frozen while the trained policy moves.
import path from "node:path";
import { EmbeddedEngine } from "../../engine/engine";
import { parseChatRequest } from "../../engine/request";
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

/** `checkpoint` is resolved against `baseDir` (the repository root when the worker runs from it). */
export function createEmbeddedTeacher(checkpoint: string, baseDir = process.cwd()): TeacherScorer {
  const dir = path.resolve(baseDir, checkpoint);
  return {
    kind: "embedded",
    template: "embedded",
    endpoint: `embedded:${dir}`,
    async score(messages, response, { tools } = {}) {
      // Read exactly as the policy read the request it answered ("function" → tool, unreadable tool
      // definitions skipped), so the teacher scores the context the student saw plus the hint.
      const request = parseChatRequest(messages, tools);
      if (!request) throw new BadResponseError("the embedded teacher cannot render these messages");
      const engine = await teacherEngine(dir);
      const scored = await engine.scoreChat(request.messages, response, {
        tools: request.tools?.length ? request.tools : undefined,
      });
      return scored.logprobs;
    },
  };
}
