// Shared pieces of the output schemas.
import { z } from "zod";
import type { Prisma } from "../../../platform/db/client";

/**
 * A stored JSON column (Prisma's JsonValue), passed through as stored. Not z.json(): its recursive JSON Schema
 * would put a `$ref: "#"` inside each OpenAPI operation; this one documents as "any JSON value".
 */
export const Json = z.custom<Prisma.JsonValue>((v) => v !== undefined, "expected a JSON value");

/** A number as the handler computes it; NaN (an empty mean, an undefined κ) leaves as JSON null. */
export const Num = z.union([z.number(), z.nan()]);

/** The planner's GPU split (server/gpu/schema.ts GpuSplit), as the GPU grid places it. */
export const GpuSplitRow = z.object({
  nodes: Num,
  gpusPerNode: Num,
  actorGpus: Num,
  rolloutGpus: Num,
  prmGpus: Num,
  rolloutGpusPerEngine: Num,
  prmGpusPerEngine: Num,
  prmTeacherGpus: Num,
  colocate: z.boolean(),
});
