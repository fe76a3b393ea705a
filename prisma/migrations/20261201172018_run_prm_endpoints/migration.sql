-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "prmModelPath" TEXT,
ADD COLUMN     "prmTeacherUrl" TEXT,
ADD COLUMN     "prmUrl" TEXT;

