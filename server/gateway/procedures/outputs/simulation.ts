// Output schemas of the simulation procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";
import { Num } from "./common";

export const SimulationListOutput = z.object({
  envEnabled: z.boolean(),
  globalEnabled: z.boolean(),
  items: z.array(
    z.object({
      experiment: z.object({
        id: z.string(),
        slug: z.string(),
        name: z.string(),
        demo: z.boolean(),
        method: z.enum(["grpo", "opd", "combine"]),
        activeRun: z
          .object({
            number: Num,
            id: z.string(),
            status: z.enum(["PENDING", "RUNNING", "PAUSED", "FINISHED", "FAILED", "CRASHED", "KILLED"]),
            lastStep: Num,
          })
          .nullable(),
      }),
      enabled: z.boolean(),
      settings: z.object({ perMinute: Num, concurrency: Num, personas: z.array(z.string()), seed: Num, maxTurns: Num }),
      updatedAt: z.string().nullable(),
      stats: z
        .object({
          experimentId: z.string(),
          at: Num,
          active: Num,
          sessions: Num,
          turns: Num,
          turnsPerS: Num,
          approvals: Num,
          corrections: Num,
          toolCalls: Num,
          errors: Num,
          lastError: z.string().nullable(),
        })
        .nullable(),
    }),
  ),
});

export const SimulationUpdateOutput = z.object({
  experimentId: z.string(),
  enabled: z.boolean(),
  settings: z.object({ perMinute: Num, concurrency: Num, personas: z.array(z.string()), seed: Num, maxTurns: Num }),
  updatedAt: z.string(),
});

const VersionReward = z.object({
  version: Num,
  turns: Num,
  reward: Num,
  firstTurns: Num,
  firstReward: Num.nullable(),
  firstAt: z.string(),
});

export const SimulationProgressOutput = z.object({
  experimentId: z.string(),
  /** adapter: the versions are the end users' adapter versions, pooled over users (a per-user experiment) */
  versionsOf: z.enum(["policy", "adapter"]),
  servedVersion: Num,
  /** training steps of the experiment's runs; in a per-user experiment, its users' adapter versions trained */
  steps: Num,
  base: VersionReward.nullable(),
  versions: z.array(VersionReward),
});

export const SimulationSetGlobalOutput = z.object({ globalEnabled: z.boolean(), envEnabled: z.boolean() });
