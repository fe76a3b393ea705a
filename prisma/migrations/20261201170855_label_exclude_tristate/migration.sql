-- AlterTable: Label.exclude becomes tri-state (true = force exclusion, false = lift it, NULL = leave the dispatch alone)
ALTER TABLE "labels" ALTER COLUMN "exclude" DROP NOT NULL,
ALTER COLUMN "exclude" DROP DEFAULT;

-- Until now a stored false only meant "not set": keep its meaning.
UPDATE "labels" SET "exclude" = NULL WHERE "exclude" = false;
