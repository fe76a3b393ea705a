-- AlterTable
ALTER TABLE "episodes" ADD COLUMN     "advantagesAt" TIMESTAMP(3),
ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "estimator" TEXT NOT NULL DEFAULT 'grpo',
ADD COLUMN     "heartbeatAt" TIMESTAMP(3),
ADD COLUMN     "maxSteps" INTEGER NOT NULL DEFAULT 10,
ADD COLUMN     "maxTokens" INTEGER,
ADD COLUMN     "prm" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "episodes_status_heartbeatAt_idx" ON "episodes"("status", "heartbeatAt");

-- CreateIndex
CREATE INDEX "episodes_groupKey_idx" ON "episodes"("groupKey");
