-- CreateEnum
CREATE TYPE "EpisodeStatus" AS ENUM ('QUEUED', 'RUNNING', 'DONE', 'FAILED');

-- CreateTable
CREATE TABLE "environments" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "limits" JSON NOT NULL,
    "network" TEXT NOT NULL DEFAULT 'none',
    "tools" JSON NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "environments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task_sets" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "latestVersion" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "task_sets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task_set_versions" (
    "id" TEXT NOT NULL,
    "setId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "format" TEXT NOT NULL,
    "splitSeed" INTEGER NOT NULL,
    "heldOutFraction" DOUBLE PRECISION NOT NULL,
    "taskCount" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "task_set_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tasks" (
    "id" TEXT NOT NULL,
    "setVersionId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "split" TEXT NOT NULL,
    "instruction" TEXT NOT NULL,
    "spec" JSON NOT NULL,
    "oracleStatus" TEXT,
    "oracleResult" JSON,
    "oracleAt" TIMESTAMP(3),

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "episodes" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "environmentId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "groupKey" TEXT,
    "sampleIndex" INTEGER,
    "status" "EpisodeStatus" NOT NULL DEFAULT 'QUEUED',
    "sessionId" TEXT,
    "leaseId" TEXT,
    "leaseProvider" TEXT,
    "outcome" DOUBLE PRECISION,
    "outcomeDetail" JSON,
    "truncation" TEXT,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "episodes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "episode_steps" (
    "id" TEXT NOT NULL,
    "episodeId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "turnId" TEXT,
    "action" JSON NOT NULL,
    "observation" JSON NOT NULL,
    "prmVotes" JSON,
    "prmScore" DOUBLE PRECISION,
    "advantage" DOUBLE PRECISION,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "episode_steps_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "environments_experimentId_name_key" ON "environments"("experimentId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "task_sets_experimentId_name_key" ON "task_sets"("experimentId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "task_set_versions_setId_version_key" ON "task_set_versions"("setId", "version");

-- CreateIndex
CREATE INDEX "tasks_setVersionId_index_idx" ON "tasks"("setVersionId", "index");

-- CreateIndex
CREATE UNIQUE INDEX "tasks_setVersionId_key_key" ON "tasks"("setVersionId", "key");

-- CreateIndex
CREATE INDEX "episodes_experimentId_createdAt_idx" ON "episodes"("experimentId", "createdAt");

-- CreateIndex
CREATE INDEX "episodes_taskId_idx" ON "episodes"("taskId");

-- CreateIndex
CREATE UNIQUE INDEX "episode_steps_episodeId_index_key" ON "episode_steps"("episodeId", "index");

-- AddForeignKey
ALTER TABLE "environments" ADD CONSTRAINT "environments_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_sets" ADD CONSTRAINT "task_sets_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_set_versions" ADD CONSTRAINT "task_set_versions_setId_fkey" FOREIGN KEY ("setId") REFERENCES "task_sets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_setVersionId_fkey" FOREIGN KEY ("setVersionId") REFERENCES "task_set_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "episodes" ADD CONSTRAINT "episodes_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "episodes" ADD CONSTRAINT "episodes_environmentId_fkey" FOREIGN KEY ("environmentId") REFERENCES "environments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "episodes" ADD CONSTRAINT "episodes_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "tasks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "episode_steps" ADD CONSTRAINT "episode_steps_episodeId_fkey" FOREIGN KEY ("episodeId") REFERENCES "episodes"("id") ON DELETE CASCADE ON UPDATE CASCADE;

