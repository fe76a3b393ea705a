-- AlterTable
ALTER TABLE "turns" ADD COLUMN     "adapterId" TEXT,
ADD COLUMN     "agentId" TEXT,
ADD COLUMN     "endUserId" TEXT;

-- CreateIndex
CREATE INDEX "turns_experimentId_endUserId_createdAt_idx" ON "turns"("experimentId", "endUserId", "createdAt");

