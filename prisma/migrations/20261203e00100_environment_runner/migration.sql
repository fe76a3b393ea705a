-- AlterTable
ALTER TABLE "environments" ADD COLUMN     "harness" JSON,
ADD COLUMN     "pool" JSON;

