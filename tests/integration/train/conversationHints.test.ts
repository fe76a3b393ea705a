// Conversation hints (`hyper.conversationHints`), on a hand-made conversation: a reply corrected for its content
// after an earlier reply was corrected for its style. With the option (the embedded default) the OPD teacher hears the
// turn's own hint first and then the conversation's earlier one — not a hint from another conversation, nor one from a
// later turn; without it, as in the reference, the turn's hint alone.
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { initBackend } from "../../../server/engine/backend";
import { loadCheckpoint } from "../../../server/engine/checkpoint";
import { decode } from "../../../server/engine/tokenizer";
import { buildBatch, earlierSessionHints } from "../../../server/training/trainInputs";
import { makeExperiment, makeRun } from "../../helpers/fixtures";
import { makeSession } from "../../helpers/turns";
import { makeCorrectedTurn } from "../../helpers/judgments";

const STYLE = "Follow the user's feedback: use a bullet list.";
const TOPIC = "Answer the question the user asked: How do I boil an egg?";
const LATER = "Follow the user's feedback: shorter.";
const OTHER = "Follow the user's feedback: end with a sign-off.";

/** A judged main turn corrected with `hint` (accepted), `index` in its session. */
const corrected = (
  experimentId: string,
  sessionId: string,
  index: number,
  request: { role: string; content: string }[],
  reply: string,
  hint: string,
) => makeCorrectedTurn({ experimentId, sessionId, index, request, reply, hint });

async function conversation(experimentId: string) {
  const session = await makeSession(experimentId);
  const q = { role: "user", content: "How do I boil an egg?" };
  const styleTurn = await corrected(experimentId, session.id, 0, [q], "Eggs are nice.", STYLE);
  const topicTurn = await corrected(
    experimentId,
    session.id,
    1,
    [
      { role: "assistant", content: "Eggs are nice." },
      { role: "user", content: "no — use a bullet list" },
    ],
    "- Rice\n- Water",
    TOPIC,
  );
  // a later correction in the same conversation, and one in another conversation: neither is earlier feedback
  await corrected(
    experimentId,
    session.id,
    2,
    [
      { role: "assistant", content: "- Rice\n- Water" },
      { role: "user", content: "no — that doesn't answer my question: How do I boil an egg?" },
    ],
    "- Boil it\n- Cool it",
    LATER,
  );
  const other = await makeSession(experimentId);
  await corrected(experimentId, other.id, 0, [q], "Eggs.", OTHER);
  return { styleTurn, topicTurn };
}

describe("conversation hints", () => {
  beforeAll(() => initBackend());

  const teacherPrompt = async (conversationHints: boolean | undefined) => {
    const e = await makeExperiment({
      method: "opd",
      policy: { kind: "embedded", checkpoint: "models/base" },
      hyper: { batchSize: 1, hindsightSamples: 0, ...(conversationHints === undefined ? {} : { conversationHints }) },
    });
    const runId = (await makeRun(e.id)).id;
    const t = await conversation(e.id);
    const { model } = await loadCheckpoint("models/base");
    const built = await buildBatch([{ id: "sample", turnId: t.topicTurn }], {
      runId,
      config: e.config,
      currentVersion: 0,
      model,
      teacher: () => {
        throw new Error("the full estimator scores the teacher in the trainer");
      },
    });
    expect(built.dropped).toEqual([]);
    return { e, t, prompt: decode(built.samples[0]!.teacherPromptIds!) };
  };

  it("gives the OPD teacher the turn's hint, then the conversation's earlier hints (the embedded default)", async () => {
    const { e, t, prompt } = await teacherPrompt(undefined);
    expect(e.config.hyper.conversationHints).toBe(true);
    expect(prompt).toContain(`${TOPIC} ${STYLE}`);
    expect(prompt).not.toContain(LATER);
    expect(prompt).not.toContain(OTHER);
    const turns = await db().turn.findMany({
      where: { id: { in: [t.styleTurn, t.topicTurn] } },
      select: { id: true, sessionId: true, index: true },
    });
    const earlier = await earlierSessionHints(turns);
    expect(earlier.get(t.styleTurn)).toEqual([]);
    expect(earlier.get(t.topicTurn)).toEqual([STYLE]);
  });

  it("gives it the turn's hint alone when off (the reference)", async () => {
    const { prompt } = await teacherPrompt(false);
    expect(prompt).toContain(TOPIC);
    expect(prompt).not.toContain(STYLE);
  });
});
