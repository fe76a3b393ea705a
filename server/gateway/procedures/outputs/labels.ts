// Output schemas of the labels procedures (drafted by scripts/draft-output-schemas.ts from the handlers' types).
import { z } from "zod";
import { Num } from "./common";

export const LabelsListOutput = z.object({
  items: z.array(
    z.object({
      value: Num,
      id: z.string(),
      createdAt: z.date(),
      source: z.enum(["REVIEWER", "USER", "JUDGE"]),
      turnId: z.string(),
      hint: z.string().nullable(),
      exclude: z.boolean().nullable(),
      comment: z.string().nullable(),
      userId: z.string().nullable(),
      apiKeyId: z.string().nullable(),
    }),
  ),
  nextCursor: z.string().nullable(),
});

export const LabelsCreateOutput = z.object({
  value: Num,
  id: z.string(),
  createdAt: z.date(),
  source: z.enum(["REVIEWER", "USER", "JUDGE"]),
  turnId: z.string(),
  hint: z.string().nullable(),
  exclude: z.boolean().nullable(),
  comment: z.string().nullable(),
  userId: z.string().nullable(),
  apiKeyId: z.string().nullable(),
});

export const LabelsAuditOutput = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      action: z.string(),
      resourceId: z.string(),
      before: z.unknown(),
      after: z.unknown(),
      createdAt: z.date(),
      actor: z.string().nullable(),
      actorKeyId: z.string().nullable(),
      turnIndex: Num.nullable(),
      experimentId: z.string().nullable(),
      experimentName: z.string().nullable(),
    }),
  ),
  nextCursor: z.string().nullable(),
});
