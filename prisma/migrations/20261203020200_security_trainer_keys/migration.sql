-- Trainer keys bound to one run (scope "trainer").
ALTER TABLE "api_keys" ADD COLUMN "runId" TEXT;
CREATE INDEX "api_keys_runId_idx" ON "api_keys"("runId");
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_runId_fkey" FOREIGN KEY ("runId") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Rollout URL changes recorded on the run.
ALTER TABLE "runs" ADD COLUMN "rolloutUrlPrevious" TEXT;
ALTER TABLE "runs" ADD COLUMN "rolloutUrlChangedAt" TIMESTAMP(3);
