// Output schemas of the me procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";

export const MeOutput = z.object({
  principal: z.union([
    z.object({
      kind: z.literal("user"),
      email: z.string(),
      role: z.enum(["ADMIN", "REVIEWER", "VIEWER"]),
      prefix: z.undefined().optional(),
    }),
    z.object({
      kind: z.literal("apiKey"),
      prefix: z.string(),
      email: z.undefined().optional(),
      role: z.undefined().optional(),
    }),
  ]),
  permissions: z.array(z.enum(["read", "review", "write", "admin", "proxy", "identity", "trainer"])),
});
