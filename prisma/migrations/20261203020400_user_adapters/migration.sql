-- CreateEnum
CREATE TYPE "AdapterState" AS ENUM ('CANDIDATE', 'PROMOTED', 'SUPERSEDED', 'REJECTED', 'ROLLED_BACK');

-- CreateTable
CREATE TABLE "user_adapters" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "endUserId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "parentId" TEXT,
    "rank" INTEGER NOT NULL,
    "alpha" DOUBLE PRECISION NOT NULL,
    "state" "AdapterState" NOT NULL DEFAULT 'CANDIDATE',
    "weights" BYTEA NOT NULL,
    "samples" INTEGER NOT NULL DEFAULT 0,
    "throughAt" TIMESTAMP(3),
    "evalScore" DOUBLE PRECISION,
    "servedScore" DOUBLE PRECISION,
    "meanReward" DOUBLE PRECISION,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decidedAt" TIMESTAMP(3),

    CONSTRAINT "user_adapters_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "user_adapters_experimentId_endUserId_state_idx" ON "user_adapters"("experimentId", "endUserId", "state");

-- CreateIndex
CREATE UNIQUE INDEX "user_adapters_experimentId_endUserId_version_key" ON "user_adapters"("experimentId", "endUserId", "version");

-- AddForeignKey
ALTER TABLE "user_adapters" ADD CONSTRAINT "user_adapters_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_adapters" ADD CONSTRAINT "user_adapters_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "user_adapters"("id") ON DELETE SET NULL ON UPDATE CASCADE;

