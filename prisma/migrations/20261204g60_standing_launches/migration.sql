-- Standing launches ("keep launching while training"): the episode worker tops each active one up to its cap of
-- groups in flight; its episodes point back at it (server/environments/standing.ts).
-- AlterTable
ALTER TABLE "episodes" ADD COLUMN     "standingLaunchId" TEXT;

-- CreateTable
CREATE TABLE "standing_launches" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "environmentId" TEXT NOT NULL,
    "taskSetId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "n" INTEGER NOT NULL,
    "maxSteps" INTEGER NOT NULL,
    "maxTokens" INTEGER,
    "estimator" TEXT NOT NULL,
    "prm" BOOLEAN NOT NULL,
    "maxGroupsInFlight" INTEGER NOT NULL,
    "groupsLaunched" INTEGER NOT NULL DEFAULT 0,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "stoppedAt" TIMESTAMP(3),
    "stopReason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "standing_launches_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "standing_launches_experimentId_createdAt_idx" ON "standing_launches"("experimentId", "createdAt");

-- CreateIndex
CREATE INDEX "standing_launches_active_idx" ON "standing_launches"("active");

-- CreateIndex
CREATE INDEX "episodes_standingLaunchId_status_idx" ON "episodes"("standingLaunchId", "status");

-- AddForeignKey
ALTER TABLE "episodes" ADD CONSTRAINT "episodes_standingLaunchId_fkey" FOREIGN KEY ("standingLaunchId") REFERENCES "standing_launches"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "standing_launches" ADD CONSTRAINT "standing_launches_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "standing_launches" ADD CONSTRAINT "standing_launches_environmentId_fkey" FOREIGN KEY ("environmentId") REFERENCES "environments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "standing_launches" ADD CONSTRAINT "standing_launches_taskSetId_fkey" FOREIGN KEY ("taskSetId") REFERENCES "task_sets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

