// Inputs of the evaluation procedures (tRPC and REST) and the JSONL line format of an eval set.
import { z } from "zod";
import { IdSchema } from "../platform/schemas";
import { PERSONAS } from "../simulation/personas";

const MessageSchema = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"], "role must be system, user, assistant or tool"),
  content: z
    .union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() })), z.null()])
    .optional(),
});

const personaIds = PERSONAS.map((p) => p.id) as [string, ...string[]];

/**
 * One eval item as a JSONL line: a conversation prefix the policy answers (`messages`, or `prompt` as a
 * single user message), an optional reference answer and rubric for the model judge, and optionally the
 * simulated persona whose hidden preference grades the reply.
 */
export const EvalItemLineSchema = z
  .object({
    key: z.string().min(1).max(200).optional(),
    prompt: z.string().min(1).max(100_000).optional(),
    messages: z.array(MessageSchema).min(1, "messages must not be empty").max(200).optional(),
    reference: z.string().max(100_000).optional(),
    rubric: z.string().max(20_000).optional(),
    persona: z.enum(personaIds, `persona must be one of ${personaIds.join(", ")}`).optional(),
  })
  .strict()
  .superRefine((l, ctx) => {
    if (!l.prompt && !l.messages)
      ctx.addIssue({ code: "custom", path: ["messages"], message: "give messages (a conversation prefix) or prompt" });
    if (l.prompt && l.messages)
      ctx.addIssue({ code: "custom", path: ["prompt"], message: "give messages or prompt, not both" });
    const last = l.messages?.[l.messages.length - 1];
    if (last && last.role !== "user" && last.role !== "tool") {
      ctx.addIssue({
        code: "custom",
        path: ["messages", l.messages!.length - 1, "role"],
        message: "the prefix must end with the user's (or a tool's) message: that is what the policy answers",
      });
    }
  });

export const SetNameSchema = z.string().trim().min(1, "name is required").max(200);

export const EvalSetListInput = z.object({ experimentId: IdSchema });
export const EvalSetGetInput = z.object({ id: IdSchema, version: z.coerce.number().int().min(1).optional() });

export const EvalSetUploadInput = z.object({
  experimentId: IdSchema,
  name: SetNameSchema,
  description: z.string().max(5000).optional(),
  /** the file's text: one JSON object per line (blank lines are skipped) */
  jsonl: z.string().max(20_000_000, "the JSONL file is larger than 20 MB"),
  /** replace: the new version holds exactly these items; append: the latest version's items, then these */
  mode: z.enum(["replace", "append"]).default("replace"),
});

export const EvalSetAddTurnsInput = z.object({
  experimentId: IdSchema,
  name: SetNameSchema,
  turnIds: z.array(IdSchema).min(1, "pick at least one turn").max(500),
  rubric: z.string().max(20_000).optional(),
  /** the recorded reply becomes the item's reference answer */
  useReplyAsReference: z.boolean().default(false),
});

export const PersonaSetInput = z.object({
  experimentId: IdSchema,
  name: SetNameSchema.default("held-out personas"),
  personas: z.array(z.enum(personaIds)).min(1).max(personaIds.length).optional(),
  /**
   * which of the personas' questions: the held-out ones, which the simulated users never ask (what the Evaluation page
   * reports), or the ones they ask ("asked": a gate set, serving.gate.set, that leaves the held-out ones unselected on)
   */
  questions: z.enum(["heldOut", "asked"]).default("heldOut"),
});

export const EvaluationListInput = z.object({
  experimentId: IdSchema,
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export const EvaluationGetInput = z.object({ id: IdSchema });
/** An environment experiment's held-out pass@1 / pass@k per policy version. */
export const TaskPassRatesInput = z.object({ experimentId: IdSchema });
export const CompareInput = z.object({
  experimentId: IdSchema,
  a: z.coerce.number().int().min(0),
  b: z.coerce.number().int().min(0),
  /** default: the set version both were evaluated on most recently */
  setVersionId: IdSchema.optional(),
});
export const RequestEvaluationInput = z.object({ experimentId: IdSchema, version: z.coerce.number().int().min(0) });
export const AgreementInput = z.object({
  experimentId: IdSchema,
  disagreements: z.coerce.number().int().min(0).max(500).default(50),
});
export const LearningReportInput = z.object({ experimentId: IdSchema });
