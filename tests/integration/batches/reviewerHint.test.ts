// An external trainer gets teacher log-probs for a reviewer's hint: the lease scores it with the experiment's
// teacher (here the embedded base, as for an embedded policy trained by an external backend; or the live run's
// PRM teacher router, as the judge does), exactly as the embedded trainer rescores it at step time, instead of
// handing out the hint with teacherLogprobs null.
import { promises as fs } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCheckpoint } from "../../../server/engine/checkpoint";
import { disposeModel } from "../../../server/engine/model";
import { scoreResponse } from "../../../server/engine/score";
import { db } from "../../../server/platform/db/client";
import { reassembleMessages } from "../../../server/recording/reassemble";
import { collectRunSamples } from "../../../server/training/leases/fill";
import { leaseBatch } from "../../../server/training/leases/service";
import { hintedPromptIds } from "../../../server/training/trainInputs";
import { ADMIN, makeExperiment, makeRun } from "../../helpers/fixtures";
import { isolateDataDir } from "../../helpers/isolate";
import { makeBaseCheckpoint } from "../../../bench/lib/baseCheckpoint";
import { label } from "../train/helpers";
import { makeJudgedSession } from "./helpers";
import { hintedTeacherMessages } from "../../../server/judge/core/teacher";
import { renderChatML } from "../../../server/judge/core/teacherClients";
import { fakeLogprob, fakeTokenize, startFakePrmServer } from "../../fakes/prmServer";

let dataDir = "";
let base = "";
beforeAll(async () => {
  dataDir = await isolateDataDir("reviewer-hint");
  base = await makeBaseCheckpoint(dataDir, 3);
});
afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

describe("reviewer hints for external trainers", () => {
  it("carry teacher log-probs scored under the hinted context", async () => {
    const hint = "Answer with a short checklist, one item per line.";
    const e = await makeExperiment({
      method: "combine",
      policy: { kind: "embedded", checkpoint: base },
      trainer: { backend: "tinker" },
    });
    const run = await makeRun(e.id, { trainerBackend: "tinker" });
    const { turnIds } = await makeJudgedSession(e.id, run.id, 2);
    await label(turnIds[1]!, "REVIEWER", -1, { hint });

    const lease = await leaseBatch(
      ADMIN,
      run.id,
      { size: 2, minSize: 1, leaseSeconds: 60 },
      { fill: collectRunSamples },
    );
    const bySample = new Map(lease.samples.map((s) => [s.turnId, s]));
    const hinted = bySample.get(turnIds[1]!)!;
    expect(hinted).toMatchObject({ kind: "BOTH", reward: -1, hint, labelSource: "REVIEWER" });
    const turn = await db().turn.findUniqueOrThrow({ where: { id: turnIds[1]! } });
    const model = (await loadCheckpoint(base)).model;
    const tools = (await db().blob.findUniqueOrThrow({ where: { hash: turn.toolsHash! } })).content;
    const expected = scoreResponse(
      model,
      hintedPromptIds(await reassembleMessages(turn), tools, hint, model.config.ctx - turn.tokenIds.length)!,
      turn.tokenIds,
    );
    disposeModel(model);
    expect(hinted.teacherLogprobs).toHaveLength(turn.tokenIds.length);
    hinted.teacherLogprobs!.forEach((lp, i) => expect(lp).toBeCloseTo(expected[i]!, 4));
    // The judge's own RL-only verdict on the other turn has no teacher.
    expect(bySample.get(turnIds[0]!)).toMatchObject({ kind: "RL", teacherLogprobs: null });
  });

  it("are scored at the live run's PRM teacher router when its job reported one", async () => {
    const prm = await startFakePrmServer();
    try {
      const hint = "Say which command, then why, in one line each.";
      const e = await makeExperiment({
        method: "combine",
        policy: { kind: "sglang", baseUrl: "http://127.0.0.1:9/v1", model: "policy" },
        trainer: { backend: "tinker" },
      });
      const run = await makeRun(e.id, { trainerBackend: "tinker" });
      await db().run.update({ where: { id: run.id }, data: { prmUrl: prm.url } });
      const { turnIds } = await makeJudgedSession(e.id, run.id, 2);
      await label(turnIds[1]!, "REVIEWER", 1, { hint });

      const lease = await leaseBatch(
        ADMIN,
        run.id,
        { size: 2, minSize: 1, leaseSeconds: 60 },
        { fill: collectRunSamples },
      );
      const hinted = lease.samples.find((s) => s.turnId === turnIds[1])!;
      const turn = await db().turn.findUniqueOrThrow({ where: { id: turnIds[1]! } });
      const tools = (await db().blob.findUniqueOrThrow({ where: { hash: turn.toolsHash! } })).content as unknown[];
      const prompt = fakeTokenize(
        renderChatML(hintedTeacherMessages((await reassembleMessages(turn)) as never, hint), tools as never),
      );
      const ids = [...prompt, ...turn.tokenIds];
      expect(hinted.teacherLogprobs).toEqual(
        turn.tokenIds.map((_, j) => fakeLogprob(ids[prompt.length + j - 1]!, ids[prompt.length + j]!)),
      );
      expect(prm.requests.map((r) => r.path)).toEqual(["/generate", "/generate"]);
    } finally {
      await prm.close();
    }
  });
});
