-- An evaluation's draw of seeds: 0 is the common draw every version answers (what the Evaluation page reports);
-- under serving.gate.confirm the gate's winner and the served version are both evaluated on a fresh draw before a
-- promotion, so the bar the next candidates must clear is not the lucky draw the winner was selected on.
ALTER TABLE "evaluations" ADD COLUMN "draw" INTEGER NOT NULL DEFAULT 0;

DROP INDEX "evaluations_experimentId_policyVersion_setVersionId_key";
CREATE UNIQUE INDEX "evaluations_experimentId_policyVersion_setVersionId_draw_key" ON "evaluations"("experimentId", "policyVersion", "setVersionId", "draw");

-- The draw a gate-promoted version was confirmed on: the gate compares the next candidates on it while it is served.
ALTER TABLE "policy_versions" ADD COLUMN "gateDraw" INTEGER NOT NULL DEFAULT 0;
