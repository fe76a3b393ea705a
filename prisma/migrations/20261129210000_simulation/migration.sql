-- CreateTable
CREATE TABLE "simulation_controls" (
    "experimentId" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "perMinute" DOUBLE PRECISION NOT NULL DEFAULT 12,
    "concurrency" INTEGER NOT NULL DEFAULT 2,
    "personas" TEXT[],
    "seed" INTEGER NOT NULL DEFAULT 1,
    "maxTurns" INTEGER NOT NULL DEFAULT 4,
    "updatedById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "simulation_controls_pkey" PRIMARY KEY ("experimentId")
);

