-- A key may serve one end user (per-user adapters): its proxy traffic is recorded and routed as that user.
ALTER TABLE "api_keys" ADD COLUMN "endUserId" TEXT;
