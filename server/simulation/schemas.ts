// Inputs and views of the simulated-user controls (tRPC, REST, the worker). Every mutating input names
// what it changes: an empty body is a 400, never a silent reset.
import { z } from "zod";
import { PERSONAS } from "./personas";
import { IdSchema } from "../platform/schemas";

export const PERSONA_IDS = PERSONAS.map((p) => p.id) as [string, ...string[]];
export const PersonaIdSchema = z.enum(PERSONA_IDS);

/** The key of the global switch's row. */
export const GLOBAL_KEY = "*";

export const SimulationSettingsSchema = z.object({
  /** new conversations started per minute (at most `concurrency` at once) */
  perMinute: z
    .number()
    .min(0.1, "at least 0.1 conversations per minute")
    .max(600, "at most 600 conversations per minute"),
  concurrency: z.number().int().min(1, "at least one user at a time").max(64, "at most 64 users at a time"),
  personas: z
    .array(PersonaIdSchema)
    .min(1, "choose at least one persona")
    .max(PERSONA_IDS.length)
    .transform((ids) => [...new Set(ids)]),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1),
  /** replies a user reacts to before leaving */
  maxTurns: z.number().int().min(1).max(12),
});
export type SimulationSettings = z.output<typeof SimulationSettingsSchema>;

export const DEFAULT_SETTINGS: SimulationSettings = {
  perMinute: 12,
  concurrency: 2,
  personas: [...PERSONA_IDS],
  seed: 1,
  maxTurns: 4,
};

export const SimulationUpdateInput = SimulationSettingsSchema.partial().extend({
  experimentId: IdSchema,
  enabled: z.boolean().optional(),
});

export const SimulationGlobalInput = z.object({ enabled: z.boolean() });

export const SimulationProgressInput = z.object({
  experimentId: IdSchema,
  /** most recent policy versions to report */
  versions: z.coerce.number().int().min(1).max(500).default(100),
});
