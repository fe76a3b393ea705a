// Output schemas of the end-user (per-user personalization) procedures.
import { z } from "zod";

const AdapterState = z.enum(["CANDIDATE", "PROMOTED", "SUPERSEDED", "REJECTED", "ROLLED_BACK"]);

export const EndUsersListOutput = z.array(
  z.object({
    endUserId: z.string(),
    turns: z.number(),
    judgedTurns: z.number(),
    lastTurnAt: z.date().nullable(),
    servedVersion: z.number().nullable(),
    servedAdapterId: z.string().nullable(),
    versions: z.number(),
    trainedSamples: z.number(),
    lastTrainedAt: z.date().nullable(),
    storageBytes: z.number(),
    /** the user's judged sessions, and how many came before three in a row whose first reply they liked (null: not yet) */
    sessions: z.number(),
    sessionsUntilStable: z.number().nullable(),
    trend: z.array(
      z.object({
        version: z.number(),
        state: AdapterState,
        meanReward: z.number().nullable(),
        evalScore: z.number().nullable(),
        servedScore: z.number().nullable(),
        samples: z.number(),
        createdAt: z.date(),
      }),
    ),
  }),
);

export const EndUserRollbackOutput = z.object({
  endUserId: z.string(),
  rolledBack: z.number(),
  served: z.number().nullable(),
});

export const EndUserDeleteOutput = z.object({
  endUserId: z.string(),
  adapters: z.number(),
  turns: z.number(),
  samples: z.number(),
});

export const EndUsersTrainOutput = z.array(
  z.object({
    endUserId: z.string(),
    trained: z.boolean(),
    version: z.number().nullable(),
    state: z.enum(["PROMOTED", "REJECTED"]).nullable(),
    samples: z.number(),
  }),
);

export const EndUserAdapterRegisterOutput = z.object({
  endUserId: z.string(),
  adapterId: z.string(),
  version: z.number(),
  state: AdapterState,
});

export const EndUserCompareOutput = z.object({
  endUserId: z.string(),
  adapterId: z.string(),
  version: z.number(),
  /** false: the gate holds none of this user's turns out, so these are their newest (trained-on) prompts */
  heldOut: z.boolean(),
  pairs: z.array(z.object({ turnId: z.string(), prompt: z.string(), base: z.string(), adapter: z.string() })),
});

const CurvePoint = z.object({
  version: z.number(),
  meanReward: z.number(),
  turns: z.number(),
  /** when the version's first judged main turn was recorded (ISO): the curves' shared time axis */
  firstAt: z.string(),
});

export const EndUserCurvesOutput = z.object({
  versionOf: z.enum(["adapter", "policy"]),
  shared: z.object({ experimentId: z.string(), name: z.string(), points: z.array(CurvePoint) }),
  users: z.array(z.object({ endUserId: z.string(), points: z.array(CurvePoint) })),
});
