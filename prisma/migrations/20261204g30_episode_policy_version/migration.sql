-- AlterTable
ALTER TABLE "episodes" ADD COLUMN     "policyVersion" INTEGER;

-- CreateIndex
CREATE INDEX "episodes_experimentId_policyVersion_idx" ON "episodes"("experimentId", "policyVersion");

