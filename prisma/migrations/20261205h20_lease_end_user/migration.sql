-- Per-user leases: a per-user experiment's batch holds one end user's samples, and its acknowledgement registers
-- that user's adapter version.
ALTER TABLE "batch_leases" ADD COLUMN "endUserId" TEXT,
ADD COLUMN "adapterId" TEXT;
