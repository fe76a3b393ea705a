// Upstream's --hint-selection at train time (openclaw-combine/hint_opd_select_loss.py @f48ac35): the overlap
// O[k, t] = |S^q_t ∩ S^p_{t,k}| and k* per token / per response on hand-computed cases, then trainStep choosing
// among a sample's hinted-teacher candidates: its distillation equals the single-teacher one on the chosen hint.
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../../server/engine/backend";
import {
  overlapCounts,
  selectCandidatePerToken,
  topKIndices,
  type TrainHintSelection,
} from "../../../server/engine/hintSelection";
import { forward } from "../../../server/engine/model";
import { Adam } from "../../../server/engine/optimizer";
import { packBatch, tokenLogprobs } from "../../../server/engine/score";
import { trainStep } from "../../../server/engine/train";
import type { PolicyModel } from "../../../server/engine/model";
import { microModel } from "./helpers";

beforeAll(async () => {
  await initBackend();
});

describe("top-K overlap and candidate choice", () => {
  // Student top-2 at 3 positions; two candidates' top-2 there.
  const student = [
    [1, 2],
    [3, 4],
    [5, 6],
  ];
  const teacher = [
    [
      [1, 9],
      [3, 4],
      [7, 8],
    ],
    [
      [2, 1],
      [9, 8],
      [6, 0],
    ],
  ];

  it("counts the shared tokens per candidate and position", () => {
    // k=0: {1}, {3,4}, {} → 1, 2, 0; k=1: {1,2}, {}, {6} → 2, 0, 1
    expect(overlapCounts(student, teacher)).toEqual([
      [1, 2, 0],
      [2, 0, 1],
    ]);
  });

  it("token_optimal takes the best candidate at each position, sequence_optimal the best in sum, shortest the first", () => {
    const o = overlapCounts(student, teacher);
    expect(selectCandidatePerToken(o, "token_optimal")).toEqual([1, 0, 1]);
    // sums: k=0 → 3, k=1 → 3: a tie keeps candidate 0 (torch argmax returns the first maximum)
    expect(selectCandidatePerToken(o, "sequence_optimal")).toEqual([0, 0, 0]);
    expect(
      selectCandidatePerToken(
        [
          [1, 0, 0],
          [0, 1, 1],
        ],
        "sequence_optimal",
      ),
    ).toEqual([1, 1, 1]);
    expect(selectCandidatePerToken(o, "shortest")).toEqual([0, 0, 0]);
  });

  it("keeps the shorter candidate where the overlaps tie, and a single candidate everywhere", () => {
    expect(
      selectCandidatePerToken(
        [
          [2, 1],
          [2, 2],
        ],
        "token_optimal",
      ),
    ).toEqual([0, 1]);
    expect(selectCandidatePerToken([[0, 0, 3]], "token_optimal")).toEqual([0, 0, 0]);
  });

  it("ranks top-K by value, lower index first on ties", () => {
    expect(topKIndices([0.1, 0.5, 0.5, -1, 0.7], 3)).toEqual([4, 1, 2]);
    expect(topKIndices([3, 1], 5)).toEqual([0, 1]);
  });
});

const P = [257, 72, 105, 260, 258];
const A = [257, 72, 105, 106, 260, 258];
const B = [257, 72, 105, 106, 107, 108, 260, 258];
const R = [65, 66, 67, 260];

/** The log-probs over the vocabulary at the response positions of `prompt` + R, [R][V]. */
function responseDist(model: PolicyModel, prompt: number[]): Float32Array[] {
  const batch = packBatch([{ promptIds: prompt, responseIds: R }], model.config.ctx);
  const flat = tf.tidy(() => {
    const ids = tf.tensor2d(batch.ids, [batch.B, batch.T], "int32");
    return tokenLogprobs(forward(model.config, model.params, ids), batch, false, true).vocab!.dataSync();
  });
  const V = model.config.vocabSize;
  const { start } = batch.spans[0];
  return R.map((_, t) => Float32Array.from(flat.subarray((start + t) * V, (start + t + 1) * V)));
}

async function distillKl(teacherPrompts: number[][], mode: TrainHintSelection, topK: number): Promise<number> {
  const [model, teacher] = [microModel(3, 4), microModel(5, 4)];
  const adam = new Adam({ lr: 0 });
  const m = await trainStep(
    model,
    adam,
    [
      {
        promptIds: P,
        responseIds: R,
        oldLogprobs: R.map(() => 0),
        reward: 0,
        kind: "OPD",
        teacherPromptIds: teacherPrompts[0],
        ...(teacherPrompts.length > 1 ? { teacherPromptCandidates: teacherPrompts } : {}),
      },
    ],
    { opdEstimator: "topk", topK, hintSelection: mode, oldLogprobs: "decoupled" },
    { teacherModel: teacher },
  );
  adam.dispose();
  return m["train/distill_kl"]!;
}

describe("trainStep with hint candidates", () => {
  it("sequence_optimal distils toward the candidate whose top-K overlaps the student's most", async () => {
    const topK = 3;
    const student = responseDist(microModel(3, 4), P).map((d) => topKIndices(d, topK));
    const teacher = microModel(5, 4);
    const cands = [B, A].map((p) => responseDist(teacher, p).map((d) => topKIndices(d, topK)));
    const [k] = selectCandidatePerToken(overlapCounts(student, cands), "sequence_optimal");
    // Candidate 1 wins here, so candidate 0 (what shortest would train on) is not the answer by default.
    expect(k).toBe(1);
    const chosen = await distillKl([A], "shortest", topK);
    expect(await distillKl([B, A], "sequence_optimal", topK)).toBeCloseTo(chosen, 6);
    // and the two single teachers differ, so the equality says which one was used
    expect(
      Math.abs((await distillKl([A], "shortest", topK)) - (await distillKl([B], "shortest", topK))),
    ).toBeGreaterThan(1e-4);
  });

  it("token_optimal with every token's overlap tied (top-K = the vocabulary) keeps the shortest candidate", async () => {
    const V = microModel(3, 4).config.vocabSize;
    expect(await distillKl([A, B], "token_optimal", V)).toBeCloseTo(await distillKl([A], "shortest", V), 6);
  });

  it("shortest ignores the other candidates", async () => {
    expect(await distillKl([A, B], "shortest", 3)).toBeCloseTo(await distillKl([A], "shortest", 3), 6);
  });
});
