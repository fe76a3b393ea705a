import { z } from "zod";
import { scopedProcedure, router } from "../trpc";
import * as trajectories from "../../../trajectories/service";
import { IdSchema } from "../../../experiments/schemas";
import {
  AuditListInput,
  ConversationInput,
  LabelCreateInput,
  LabelListInput,
  SessionListInput,
  TurnListInput,
} from "../../../trajectories/schemas";

export const sessionsRouter = router({
  list: scopedProcedure("read")
    .input(SessionListInput)
    .query(({ ctx, input }) => trajectories.listSessions(ctx.principal, input)),
  get: scopedProcedure("read")
    .input(z.object({ id: IdSchema }))
    .query(({ ctx, input }) => trajectories.getSession(ctx.principal, input.id)),
  conversation: scopedProcedure("read")
    .input(ConversationInput)
    .query(({ ctx, input }) => trajectories.getConversation(ctx.principal, input)),
});

export const turnsRouter = router({
  list: scopedProcedure("read")
    .input(TurnListInput)
    .query(({ ctx, input }) => trajectories.listTurns(ctx.principal, input)),
  get: scopedProcedure("read")
    .input(z.object({ id: IdSchema }))
    .query(({ ctx, input }) => trajectories.getTurn(ctx.principal, input.id)),
});

export const labelsRouter = router({
  list: scopedProcedure("read")
    .input(LabelListInput)
    .query(({ ctx, input }) => trajectories.listLabels(ctx.principal, input)),
  create: scopedProcedure("review")
    .input(LabelCreateInput)
    .mutation(({ ctx, input }) => trajectories.createLabel(ctx.principal, input)),
  audit: scopedProcedure("read")
    .input(AuditListInput)
    .query(({ ctx, input }) => trajectories.listTurnAudit(ctx.principal, input)),
});
