// Output schemas of the workers procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";
import { Num } from "./common";

export const WorkersListOutput = z.array(
  z.object({
    kind: z.string(),
    id: z.string(),
    pid: Num,
    host: z.string(),
    startedAt: Num,
    at: Num,
    activity: z.string(),
    stats: z.record(z.string(), Num),
    stale: z.boolean(),
  }),
);
