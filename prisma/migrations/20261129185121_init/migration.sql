-- CreateEnum
CREATE TYPE "Role" AS ENUM ('ADMIN', 'REVIEWER', 'VIEWER');

-- CreateEnum
CREATE TYPE "ExperimentStatus" AS ENUM ('ACTIVE', 'ARCHIVED');

-- CreateEnum
CREATE TYPE "RunStatus" AS ENUM ('PENDING', 'RUNNING', 'PAUSED', 'FINISHED', 'FAILED', 'CRASHED', 'KILLED');

-- CreateEnum
CREATE TYPE "TurnType" AS ENUM ('MAIN', 'SIDE');

-- CreateEnum
CREATE TYPE "TurnStatus" AS ENUM ('OK', 'FAILED');

-- CreateEnum
CREATE TYPE "LabelSource" AS ENUM ('REVIEWER', 'USER', 'JUDGE');

-- CreateEnum
CREATE TYPE "SampleKind" AS ENUM ('RL', 'OPD', 'BOTH');

-- CreateEnum
CREATE TYPE "PolicyVersionStatus" AS ENUM ('CANDIDATE', 'ACTIVE', 'RETIRED', 'ROLLED_BACK');

-- CreateTable
CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "passwordHash" TEXT NOT NULL,
    "role" "Role" NOT NULL DEFAULT 'VIEWER',
    "disabledAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "lastLoginAt" TIMESTAMP(3),

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "scopes" TEXT[],
    "experimentId" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "experiments" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "config" JSONB NOT NULL,
    "secrets" JSONB NOT NULL DEFAULT '{}',
    "status" "ExperimentStatus" NOT NULL DEFAULT 'ACTIVE',
    "demo" BOOLEAN NOT NULL DEFAULT false,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "archivedAt" TIMESTAMP(3),

    CONSTRAINT "experiments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "runs" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "config" JSONB NOT NULL,
    "status" "RunStatus" NOT NULL DEFAULT 'PENDING',
    "trainerBackend" TEXT NOT NULL,
    "externalJobId" TEXT,
    "statusMessage" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "endedAt" TIMESTAMP(3),
    "heartbeatAt" TIMESTAMP(3),
    "lastStep" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_sessions" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "idSource" TEXT NOT NULL DEFAULT 'header',
    "simulated" BOOLEAN NOT NULL DEFAULT false,
    "persona" TEXT,
    "done" BOOLEAN NOT NULL DEFAULT false,
    "turnCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastTurnAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "doneAt" TIMESTAMP(3),

    CONSTRAINT "agent_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "blobs" (
    "hash" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "content" JSONB NOT NULL,
    "bytes" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "blobs_pkey" PRIMARY KEY ("hash")
);

-- CreateTable
CREATE TABLE "turns" (
    "id" TEXT NOT NULL,
    "requestId" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "runId" TEXT,
    "index" INTEGER NOT NULL,
    "turnType" "TurnType" NOT NULL DEFAULT 'MAIN',
    "typeSource" TEXT NOT NULL DEFAULT 'header',
    "status" "TurnStatus" NOT NULL DEFAULT 'OK',
    "simulated" BOOLEAN NOT NULL DEFAULT false,
    "systemHash" TEXT,
    "toolsHash" TEXT,
    "messagesOffset" INTEGER NOT NULL DEFAULT 0,
    "messagesDelta" JSONB NOT NULL,
    "params" JSONB NOT NULL DEFAULT '{}',
    "content" TEXT,
    "toolCalls" JSONB,
    "reasoning" TEXT,
    "finishReason" TEXT,
    "tokenIds" INTEGER[],
    "logprobs" DOUBLE PRECISION[],
    "promptTokens" INTEGER,
    "completionTokens" INTEGER,
    "ttftMs" INTEGER,
    "latencyMs" INTEGER,
    "policyVersion" INTEGER NOT NULL DEFAULT 0,
    "upstreamModel" TEXT,
    "error" TEXT,
    "nextState" JSONB,
    "nextStateRole" TEXT,
    "nextStateAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "turns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "judgments" (
    "id" TEXT NOT NULL,
    "turnId" TEXT NOT NULL,
    "judgeVersion" TEXT NOT NULL,
    "judgeKind" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "promptVersion" TEXT NOT NULL,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "score" INTEGER NOT NULL,
    "evalScore" DOUBLE PRECISION,
    "hint" TEXT,
    "hintAccepted" BOOLEAN NOT NULL DEFAULT false,
    "teacherLogprobs" DOUBLE PRECISION[],
    "dispatch" TEXT,
    "excluded" BOOLEAN NOT NULL DEFAULT false,
    "excludeReason" TEXT,
    "latencyMs" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "judgments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "judge_votes" (
    "id" TEXT NOT NULL,
    "judgmentId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "raw" TEXT NOT NULL,
    "value" INTEGER,
    "hint" TEXT,
    "latencyMs" INTEGER,
    "error" TEXT,

    CONSTRAINT "judge_votes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "labels" (
    "id" TEXT NOT NULL,
    "turnId" TEXT NOT NULL,
    "source" "LabelSource" NOT NULL,
    "value" INTEGER NOT NULL,
    "hint" TEXT,
    "exclude" BOOLEAN NOT NULL DEFAULT false,
    "comment" TEXT,
    "userId" TEXT,
    "apiKeyId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "labels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "samples" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "turnId" TEXT NOT NULL,
    "kind" "SampleKind" NOT NULL,
    "reward" DOUBLE PRECISION NOT NULL,
    "labelSource" "LabelSource" NOT NULL,
    "excluded" BOOLEAN NOT NULL DEFAULT false,
    "excludeReason" TEXT,
    "staleness" INTEGER,
    "stepId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "samples_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "training_steps" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "step" INTEGER NOT NULL,
    "policyVersion" INTEGER NOT NULL,
    "metrics" JSONB NOT NULL DEFAULT '{}',
    "durationMs" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "training_steps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "policy_versions" (
    "id" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "runId" TEXT,
    "version" INTEGER NOT NULL,
    "parentVersion" INTEGER,
    "status" "PolicyVersionStatus" NOT NULL DEFAULT 'CANDIDATE',
    "checkpointPath" TEXT,
    "checkpointSha" TEXT,
    "bytes" INTEGER,
    "step" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "promotedAt" TIMESTAMP(3),

    CONSTRAINT "policy_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "metric_points" (
    "id" BIGSERIAL NOT NULL,
    "experimentId" TEXT NOT NULL,
    "runId" TEXT,
    "name" TEXT NOT NULL,
    "step" INTEGER,
    "value" DOUBLE PRECISION NOT NULL,
    "ts" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "metric_points_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_logs" (
    "id" TEXT NOT NULL,
    "actorUserId" TEXT,
    "actorKeyId" TEXT,
    "action" TEXT NOT NULL,
    "resourceType" TEXT NOT NULL,
    "resourceId" TEXT,
    "before" JSONB,
    "after" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_logs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_prefix_key" ON "api_keys"("prefix");

-- CreateIndex
CREATE INDEX "api_keys_experimentId_idx" ON "api_keys"("experimentId");

-- CreateIndex
CREATE UNIQUE INDEX "experiments_slug_key" ON "experiments"("slug");

-- CreateIndex
CREATE INDEX "experiments_status_updatedAt_idx" ON "experiments"("status", "updatedAt");

-- CreateIndex
CREATE INDEX "runs_status_idx" ON "runs"("status");

-- CreateIndex
CREATE UNIQUE INDEX "runs_experimentId_number_key" ON "runs"("experimentId", "number");

-- CreateIndex
CREATE INDEX "agent_sessions_experimentId_lastTurnAt_idx" ON "agent_sessions"("experimentId", "lastTurnAt");

-- CreateIndex
CREATE UNIQUE INDEX "agent_sessions_experimentId_externalId_key" ON "agent_sessions"("experimentId", "externalId");

-- CreateIndex
CREATE UNIQUE INDEX "turns_requestId_key" ON "turns"("requestId");

-- CreateIndex
CREATE INDEX "turns_experimentId_createdAt_idx" ON "turns"("experimentId", "createdAt");

-- CreateIndex
CREATE INDEX "turns_runId_createdAt_idx" ON "turns"("runId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "turns_sessionId_index_key" ON "turns"("sessionId", "index");

-- CreateIndex
CREATE UNIQUE INDEX "judgments_turnId_judgeVersion_key" ON "judgments"("turnId", "judgeVersion");

-- CreateIndex
CREATE UNIQUE INDEX "judge_votes_judgmentId_kind_index_key" ON "judge_votes"("judgmentId", "kind", "index");

-- CreateIndex
CREATE INDEX "labels_turnId_createdAt_idx" ON "labels"("turnId", "createdAt");

-- CreateIndex
CREATE INDEX "samples_runId_stepId_idx" ON "samples"("runId", "stepId");

-- CreateIndex
CREATE UNIQUE INDEX "samples_runId_turnId_key" ON "samples"("runId", "turnId");

-- CreateIndex
CREATE UNIQUE INDEX "training_steps_runId_step_key" ON "training_steps"("runId", "step");

-- CreateIndex
CREATE UNIQUE INDEX "policy_versions_experimentId_version_key" ON "policy_versions"("experimentId", "version");

-- CreateIndex
CREATE INDEX "metric_points_runId_name_ts_idx" ON "metric_points"("runId", "name", "ts");

-- CreateIndex
CREATE INDEX "metric_points_experimentId_name_ts_idx" ON "metric_points"("experimentId", "name", "ts");

-- CreateIndex
CREATE INDEX "audit_logs_resourceType_resourceId_createdAt_idx" ON "audit_logs"("resourceType", "resourceId", "createdAt");

-- CreateIndex
CREATE INDEX "audit_logs_createdAt_idx" ON "audit_logs"("createdAt");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "runs" ADD CONSTRAINT "runs_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_sessions" ADD CONSTRAINT "agent_sessions_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "turns" ADD CONSTRAINT "turns_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "turns" ADD CONSTRAINT "turns_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "agent_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "turns" ADD CONSTRAINT "turns_runId_fkey" FOREIGN KEY ("runId") REFERENCES "runs"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "judgments" ADD CONSTRAINT "judgments_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "turns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "judge_votes" ADD CONSTRAINT "judge_votes_judgmentId_fkey" FOREIGN KEY ("judgmentId") REFERENCES "judgments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "labels" ADD CONSTRAINT "labels_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "turns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "labels" ADD CONSTRAINT "labels_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "labels" ADD CONSTRAINT "labels_apiKeyId_fkey" FOREIGN KEY ("apiKeyId") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "samples" ADD CONSTRAINT "samples_runId_fkey" FOREIGN KEY ("runId") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "samples" ADD CONSTRAINT "samples_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "turns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "samples" ADD CONSTRAINT "samples_stepId_fkey" FOREIGN KEY ("stepId") REFERENCES "training_steps"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "training_steps" ADD CONSTRAINT "training_steps_runId_fkey" FOREIGN KEY ("runId") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_runId_fkey" FOREIGN KEY ("runId") REFERENCES "runs"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "metric_points" ADD CONSTRAINT "metric_points_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "metric_points" ADD CONSTRAINT "metric_points_runId_fkey" FOREIGN KEY ("runId") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "audit_logs" ADD CONSTRAINT "audit_logs_actorUserId_fkey" FOREIGN KEY ("actorUserId") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;
