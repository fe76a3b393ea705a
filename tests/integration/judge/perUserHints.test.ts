// A per-user experiment's adapters train on the hinted teacher's demonstrations of each corrected turn, so the judge
// worker extracts the hint whatever the experiment's method — under GRPO too (the per-user demo's method), where a
// shared-policy experiment's judge asks for none.
import { afterAll, expect, it } from "vitest";
import { encode, END_ID } from "../../../server/engine/tokenizer";
import { judgeTurnJob } from "../../../server/judge/worker/process";
import { JudgeRuntime } from "../../../server/judge/worker/runtime";
import { judgmentsOf } from "./helpers";
import { deleteExperiments, makeExperiment } from "../../helpers/fixtures";
import { makeTurn } from "../../helpers/turns";

afterAll(() => deleteExperiments());

const corrected = async (experimentId: string) => {
  const content = "Water evaporates, condenses into clouds and falls as rain.";
  return makeTurn({
    experimentId,
    request: [{ role: "user", content: "Summarise the water cycle." }],
    content,
    tokenIds: [...encode(content), END_ID],
    next: { role: "user", content: "no — shorter please, one sentence" },
  });
};

it("keeps the correction's hint for a per-user GRPO experiment, and none for a shared GRPO one", async () => {
  const runtime = new JudgeRuntime();
  const perUser = await makeExperiment({ method: "grpo", personalization: "per-user" });
  const shared = await makeExperiment({ method: "grpo" });
  const [mine, theirs] = [await corrected(perUser.id), await corrected(shared.id)];
  for (const id of [mine, theirs])
    expect((await judgeTurnJob(runtime, id, { finalAttempt: false })).status).toBe("stored");

  const [j] = await judgmentsOf(mine);
  expect(j).toMatchObject({
    score: -1,
    hint: "The user wants shorter answers: one sentence.",
    hintAccepted: true,
    dispatch: "RL",
    teacherLogprobs: [], // none: GRPO distils nothing (stored as an empty array)
  });
  const [plain] = await judgmentsOf(theirs);
  expect(plain).toMatchObject({ score: -1, hint: null, hintAccepted: false, dispatch: "RL" });
  // With hindsight off the adapters want no hints: the judge asks for none.
  const off = await makeExperiment({ method: "grpo", personalization: "per-user", perUser: { hindsightSamples: 0 } });
  const none = await corrected(off.id);
  expect((await judgeTurnJob(runtime, none, { finalAttempt: false })).status).toBe("stored");
  expect((await judgmentsOf(none))[0]).toMatchObject({ hint: null, hintAccepted: false });
});
