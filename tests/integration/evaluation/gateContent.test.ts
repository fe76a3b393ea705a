// The promotion gate against a policy that learned the style and lost the content. v1 is fine-tuned on Leo's
// training questions toward bullet lists of their own facts (style and content); v2, from v1, toward one bullet list
// about passwords whatever the question (style without content: what GRPO found against a style-only reward). On
// the held-out persona set, persona-v2 holds v2 back; re-grading the very same stored replies with persona-v1's rule
// (style alone) would have promoted it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../../server/platform/db/client";
import { initBackend } from "../../../server/engine/backend";
import { loadCheckpoint } from "../../../server/engine/checkpoint";
import { disposeModel } from "../../../server/engine/model";
import { commitStep } from "../../../server/training/commit";
import { createPersonaEvalSet } from "../../../server/evaluation/service";
import { evaluateVersion } from "../../../server/evaluation/runner";
import { decideGate } from "../../../server/evaluation/gate";
import { getPersona, QUESTIONS, renderReply, satisfiesPreference } from "../../../server/simulation/personas";
import { checkpoint, fineTune } from "./helpers";
import { isolateDataDir, isolateRedis } from "../../helpers/isolate";
import { makeExperiment, makeRun } from "../../helpers/fixtures";

isolateRedis("eval-gate-content");
const leo = getPersona("leo");
const password = QUESTIONS.find((q) => q.id === "password")!;

describe("gated promotion with persona-v2", () => {
  let dir: string;
  beforeAll(async () => {
    await initBackend();
    dir = await isolateDataDir("gate-content");
  });
  afterAll(() => db().$disconnect());

  it("holds back a version that learned Leo's style and lost the content, which persona-v1 would have promoted", async () => {
    const tolerance = 0.05;
    const e = await makeExperiment({
      method: "grpo",
      policy: { kind: "embedded", checkpoint: "models/base" },
      serving: { promotion: "gated", gate: { tolerance }, maxTokens: 96 },
      evaluation: { enabled: true, k: 2, temperature: 0.7, seed: 1, maxTokens: 96 },
    });
    const runId = (await makeRun(e.id)).id;
    const set = await createPersonaEvalSet(null, { experimentId: e.id, name: "held-out personas", personas: ["leo"] });
    const commit = (version: number, parentVersion: number, ckpt: string) =>
      commitStep({
        runId,
        experimentId: e.id,
        step: version,
        version,
        parentVersion,
        checkpointPath: ckpt,
        checkpointSha: "test",
        bytes: 0,
        decisions: new Map(),
        record: { values: {}, trace: [], parentVersion },
        durationMs: 1,
        points: [],
      });
    await evaluateVersion(e.id, 0, set.setVersionId);

    const honest = (await loadCheckpoint("models/base")).model;
    await fineTune(honest, leo, (q) => renderReply(q, "bullets"), 12);
    const v1Path = await checkpoint(dir, "v1", honest, 1);
    await commit(1, 0, v1Path);
    const ev1 = (await evaluateVersion(e.id, 1, set.setVersionId))!;
    expect((await db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, version: 1 } })).status).toBe(
      "ACTIVE",
    );

    const gamed = (await loadCheckpoint(v1Path)).model;
    await fineTune(gamed, leo, () => renderReply(password, "bullets"), 12);
    const v2Path = await checkpoint(dir, "v2", gamed, 2);
    await commit(2, 1, v2Path);
    const ev2 = (await evaluateVersion(e.id, 2, set.setVersionId))!;

    const v2 = await db().policyVersion.findFirstOrThrow({ where: { experimentId: e.id, version: 2 } });
    expect(v2.status, `persona-v2: v1 ${ev1.mean} → v2 ${ev2.mean}`).toBe("CANDIDATE");
    expect(v2.gateReason).toMatch(/^eval \d\.\d{3} < served v1's \d\.\d{3} − tolerance 0\.050$/);

    // The same stored replies under persona-v1's rule (the preference alone): v2 is in style at least as often as
    // v1, so the old grader would have promoted it.
    const styleMean = async (evaluationId: string) => {
      const scores = await db().evalScore.findMany({ where: { evaluationId } });
      return scores.filter((s) => satisfiesPreference(leo, s.reply)).length / scores.length;
    };
    const v1Style = await styleMean(ev1.id);
    const v2Style = await styleMean(ev2.id);
    const old = decideGate({
      candidate: { version: 2, mean: v2Style },
      served: { version: 1, mean: v1Style },
      tolerance,
    });
    expect(old.promote, `persona-v1: v1 ${v1Style} → v2 ${v2Style}`).toBe(true);
    // ...and the replies it would have served answer passwords, not Leo's questions.
    const replies = await db().evalScore.findMany({ where: { evaluationId: ev2.id } });
    expect(replies.every((s) => (s.detail as { onTopic: boolean }).onTopic === false)).toBe(true);
    disposeModel(honest);
    disposeModel(gamed);
  }, 240_000);
});
