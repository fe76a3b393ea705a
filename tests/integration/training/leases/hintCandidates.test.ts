// An external trainer (hf-local, or slime running upstream's hybrid: combine with the topk estimator) under hint
// selection token_optimal / sequence_optimal gets the judge's hint candidates with each leased OPD sample, shortest
// first, to choose among at train time (integrations/hf/train.py; slime: integrations/slime/convert.py).
import { describe, expect, it } from "vitest";
import { db } from "../../../../server/platform/db/client";
import { collectRunSamples } from "../../../../server/training/leases/fill";
import { leaseBatch } from "../../../../server/training/leases/service";
import { ADMIN, makeExperiment, makeRun } from "../../../helpers/fixtures";
import { makeJudgedSession } from "./helpers";

describe("hint candidates in leased samples", () => {
  for (const trainer of [
    { backend: "hf-local", label: "hf-local" },
    // slime's hybrid (combine with the topk estimator): the rollout turns them into teacher_tokens_candidates.
    { backend: "ray-slime", rayAddress: "http://ray:8265", label: "slime's hybrid" },
  ] as const)
    it(`come with the judge's hint, shortest first; RL samples carry none (${trainer.label})`, async () => {
      const [short, long] = ["Answer in one short line.", "Answer in French, with a greeting and a closing line."];
      const e = await makeExperiment({
        method: "combine",
        policy: { kind: "sglang", baseUrl: "http://127.0.0.1:30001", model: "qwen" },
        trainer: { backend: trainer.backend, ...("rayAddress" in trainer ? { rayAddress: trainer.rayAddress } : {}) },
        judge: { hintSelection: "token_optimal" },
        hyper: { opdEstimator: "topk" },
      });
      const run = await makeRun(e.id, { trainerBackend: trainer.backend });
      const { turnIds } = await makeJudgedSession(e.id, run.id, 2);
      // Turn 0: the judge accepted two hints (votes in call order) and trained on the shortest; turn 1 stays RL.
      const j = await db().judgment.findFirstOrThrow({ where: { turnId: turnIds[0]! } });
      await db().judgment.update({
        where: { id: j.id },
        data: { hint: short, hintAccepted: true, teacherLogprobs: [-0.5, -0.5, -0.5] },
      });
      for (const [index, hint] of [long, short].entries())
        await db().judgeVote.create({ data: { judgmentId: j.id, kind: "hint", index, raw: hint, value: 1, hint } });

      const lease = await leaseBatch(
        ADMIN,
        run.id,
        { size: 2, minSize: 2, leaseSeconds: 60 },
        { fill: collectRunSamples },
      );
      const byTurn = new Map(lease.samples.map((s) => [s.turnId, s]));
      expect(byTurn.get(turnIds[0]!)).toMatchObject({ kind: "BOTH", hint: short, hintCandidates: [short, long] });
      expect(byTurn.get(turnIds[1]!)).toMatchObject({ kind: "RL", hintCandidates: null });
    });
});
