-- An evaluation's draw: 0 is the common-seed evaluation every version answers (reported, and what the gate selects
-- on); 1 re-scores a gate winner on fresh seeds before it is promoted (serving.gate.confirm), so the bar the next
-- candidates must clear is not the lucky draw its selection was made on.
ALTER TABLE "evaluations" ADD COLUMN "draw" INTEGER NOT NULL DEFAULT 0;

DROP INDEX "evaluations_experimentId_policyVersion_setVersionId_key";
CREATE UNIQUE INDEX "evaluations_experimentId_policyVersion_setVersionId_draw_key" ON "evaluations"("experimentId", "policyVersion", "setVersionId", "draw");
