-- AlterTable
ALTER TABLE "policy_versions" ADD COLUMN     "gateReason" TEXT;

-- CreateTable
CREATE TABLE "eval_sets" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "latestVersion" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "eval_sets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "eval_set_versions" (
    "id" TEXT NOT NULL,
    "setId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "itemCount" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "eval_set_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "eval_items" (
    "id" TEXT NOT NULL,
    "setVersionId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "messages" JSON NOT NULL,
    "reference" TEXT,
    "rubric" TEXT,
    "persona" TEXT,
    "sourceTurnId" TEXT,

    CONSTRAINT "eval_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "evaluations" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "policyVersion" INTEGER NOT NULL,
    "setVersionId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "grader" TEXT NOT NULL,
    "graderVersion" TEXT NOT NULL,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "items" INTEGER NOT NULL DEFAULT 0,
    "replies" INTEGER NOT NULL DEFAULT 0,
    "mean" DOUBLE PRECISION,
    "ciLow" DOUBLE PRECISION,
    "ciHigh" DOUBLE PRECISION,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "replyTokens" INTEGER NOT NULL DEFAULT 0,
    "durationMs" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "evaluations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "eval_scores" (
    "id" TEXT NOT NULL,
    "evaluationId" TEXT NOT NULL,
    "itemId" TEXT NOT NULL,
    "sample" INTEGER NOT NULL,
    "seed" INTEGER NOT NULL,
    "reply" TEXT NOT NULL,
    "score" DOUBLE PRECISION NOT NULL,
    "grader" TEXT NOT NULL,
    "graderVersion" TEXT NOT NULL,
    "detail" JSONB,
    "replyTokens" INTEGER NOT NULL DEFAULT 0,
    "latencyMs" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "eval_scores_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "eval_sets_experimentId_name_key" ON "eval_sets"("experimentId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "eval_set_versions_setId_version_key" ON "eval_set_versions"("setId", "version");

-- CreateIndex
CREATE UNIQUE INDEX "eval_items_setVersionId_index_key" ON "eval_items"("setVersionId", "index");

-- CreateIndex
CREATE INDEX "evaluations_experimentId_createdAt_idx" ON "evaluations"("experimentId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "evaluations_experimentId_policyVersion_setVersionId_key" ON "evaluations"("experimentId", "policyVersion", "setVersionId");

-- CreateIndex
CREATE UNIQUE INDEX "eval_scores_evaluationId_itemId_sample_key" ON "eval_scores"("evaluationId", "itemId", "sample");

-- AddForeignKey
ALTER TABLE "eval_sets" ADD CONSTRAINT "eval_sets_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "eval_set_versions" ADD CONSTRAINT "eval_set_versions_setId_fkey" FOREIGN KEY ("setId") REFERENCES "eval_sets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "eval_items" ADD CONSTRAINT "eval_items_setVersionId_fkey" FOREIGN KEY ("setVersionId") REFERENCES "eval_set_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluations" ADD CONSTRAINT "evaluations_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "evaluations" ADD CONSTRAINT "evaluations_setVersionId_fkey" FOREIGN KEY ("setVersionId") REFERENCES "eval_set_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "eval_scores" ADD CONSTRAINT "eval_scores_evaluationId_fkey" FOREIGN KEY ("evaluationId") REFERENCES "evaluations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "eval_scores" ADD CONSTRAINT "eval_scores_itemId_fkey" FOREIGN KEY ("itemId") REFERENCES "eval_items"("id") ON DELETE CASCADE ON UPDATE CASCADE;

