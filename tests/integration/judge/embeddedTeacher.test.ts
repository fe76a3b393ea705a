// Teacher log-probs from the embedded policy model: a combine turn judged by the heuristic judge on an
// embedded-policy experiment stores the frozen base checkpoint's log-probs of the recorded response
// tokens under the hinted context — checked against a direct scoreChat on a separately loaded engine.
import * as tf from "@tensorflow/tfjs-core";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import { saveCheckpoint } from "../../../server/engine/checkpoint";
import { EmbeddedEngine } from "../../../server/engine/engine";
import { createModel, disposeModel } from "../../../server/engine/model";
import { encode, END_ID, VOCAB_SIZE } from "../../../server/engine/tokenizer";
import { hintedTeacherMessages } from "../../../server/judge/core/teacher";
import { judgeTurnJob } from "../../../server/judge/worker/process";
import { JudgeRuntime } from "../../../server/judge/worker/runtime";
import { judgmentsOf } from "./helpers";
import { deleteExperiments, makeExperiment } from "../../helpers/fixtures";
import { makeTurn } from "../../helpers/turns";

let dir: string;
let checkpoint: string;

beforeAll(async () => {
  await initBackend();
  dir = await mkdtemp(path.join(os.tmpdir(), "judge-teacher-"));
  checkpoint = path.join(dir, "base");
  // A tiny model with weights scaled up so every log-prob depends visibly on the context.
  const model = createModel({ vocabSize: VOCAB_SIZE, ctx: 256, nLayer: 1, nEmbd: 16, nHead: 2 }, 7);
  for (const [name, t] of Object.entries(model.params)) {
    if (t.rank === 2) {
      model.params[name] = tf.mul(t, 8);
      t.dispose();
    }
  }
  await saveCheckpoint(checkpoint, model, { version: 0, step: 0 });
  disposeModel(model);
});

afterAll(async () => {
  await deleteExperiments();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("stores the frozen base model's log-probs of the response tokens under the hinted context", async () => {
  const exp = (await makeExperiment({ method: "combine", policy: { kind: "embedded", checkpoint } })).id;
  const request = [
    { role: "system", content: "Answer briefly." },
    { role: "user", content: "Summarise the water cycle." },
  ];
  const content = "Water evaporates, condenses into clouds and falls as rain.";
  const tokenIds = [...encode(content), END_ID];
  const id = await makeTurn({
    experimentId: exp,
    request,
    content,
    tokenIds,
    next: { role: "user", content: "no — shorter please, one sentence" },
  });

  const out = await judgeTurnJob(new JudgeRuntime(), id, { finalAttempt: false });
  expect(out.status).toBe("stored");
  const [j] = await judgmentsOf(id);
  expect(j).toMatchObject({
    judgeKind: "heuristic",
    score: -1,
    hint: "The user wants shorter answers: one sentence.",
    hintAccepted: true,
    dispatch: "BOTH",
    excluded: false,
  });

  const direct = new EmbeddedEngine();
  await direct.load(checkpoint);
  const hinted = await direct.scoreChat(
    hintedTeacherMessages(request, j.hint!) as Parameters<EmbeddedEngine["scoreChat"]>[0],
    tokenIds,
  );
  expect(j.teacherLogprobs).toHaveLength(tokenIds.length);
  j.teacherLogprobs.forEach((lp, k) => expect(lp).toBeCloseTo(hinted.logprobs[k], 5));
  // The hint is really in the teacher's context: without it the same tokens score differently.
  const plain = await direct.scoreChat(request as Parameters<EmbeddedEngine["scoreChat"]>[0], tokenIds);
  expect(plain.logprobs.some((lp, k) => Math.abs(lp - j.teacherLogprobs[k]) > 1e-3)).toBe(true);
  direct.dispose();
});
