// Input pieces every feature's schemas share: ids, paging, and booleans and numbers as a query string sends them.
import { z } from "zod";

/** A row id (cuid) or a slug-sized name; the bound keeps path and query parameters short. */
export const IdSchema = z.string().min(1).max(64);

/** How many rows a list answers: 1–200, 50 when absent (a query string sends a number as text). */
export const LimitSchema = z.coerce.number().int().min(1).max(200).default(50);

/** Id-cursor paging (`cursor`: the last id of the previous page). */
export const PageInput = z.object({
  cursor: z.string().max(64).optional(),
  limit: LimitSchema,
});

/** Booleans from JSON or a query string ("true"/"false"/"1"/"0"); z.coerce.boolean would read "false" as true. */
export const QueryBool = z.union([
  z.boolean(),
  z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1"),
]);
