-- How long an episode's sandbox or pool took to allocate its lease and to evaluate it: the Environments page's
-- allocate and evaluate latency (p50/p95 over the environment's latest ended episodes).
ALTER TABLE "episodes" ADD COLUMN "allocateMs" INTEGER;
ALTER TABLE "episodes" ADD COLUMN "evaluateMs" INTEGER;
