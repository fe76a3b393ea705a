// Output schemas of the labels procedures; the label row is the trajectory reads' (outputs/trajectories.ts).
import { z } from "zod";
import { Num } from "./common";
import { LabelRow } from "./trajectories";

export const LabelsListOutput = z.object({ items: z.array(LabelRow), nextCursor: z.string().nullable() });

export const LabelsCreateOutput = LabelRow;

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
