-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "rolloutUrl" TEXT,
ADD COLUMN     "weightVersion" INTEGER;

-- AlterTable
ALTER TABLE "samples" ADD COLUMN     "leaseCount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "leaseId" TEXT;

-- CreateTable
CREATE TABLE "batch_leases" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "requestKey" TEXT,
    "sampleIds" TEXT[],
    "leasedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "ackedAt" TIMESTAMP(3),
    "step" INTEGER,
    "stepId" TEXT,

    CONSTRAINT "batch_leases_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "batch_leases_runId_leasedAt_idx" ON "batch_leases"("runId", "leasedAt");

-- CreateIndex
CREATE UNIQUE INDEX "batch_leases_runId_requestKey_key" ON "batch_leases"("runId", "requestKey");

-- CreateIndex
CREATE INDEX "samples_leaseId_idx" ON "samples"("leaseId");

-- AddForeignKey
ALTER TABLE "samples" ADD CONSTRAINT "samples_leaseId_fkey" FOREIGN KEY ("leaseId") REFERENCES "batch_leases"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_leases" ADD CONSTRAINT "batch_leases_runId_fkey" FOREIGN KEY ("runId") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "batch_leases" ADD CONSTRAINT "batch_leases_stepId_fkey" FOREIGN KEY ("stepId") REFERENCES "training_steps"("id") ON DELETE SET NULL ON UPDATE CASCADE;

