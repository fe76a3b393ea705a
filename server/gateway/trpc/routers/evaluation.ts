import { scopedProcedure, router } from "../trpc";
import * as evaluation from "../../../evaluation/service";
import {
  AgreementInput,
  CompareInput,
  EvalSetAddTurnsInput,
  EvalSetGetInput,
  EvalSetListInput,
  EvalSetUploadInput,
  EvaluationGetInput,
  EvaluationListInput,
  PersonaSetInput,
  RequestEvaluationInput,
} from "../../../evaluation/schemas";

export const evaluationRouter = router({
  sets: scopedProcedure("read")
    .input(EvalSetListInput)
    .query(({ ctx, input }) => evaluation.listEvalSets(ctx.principal, input)),
  set: scopedProcedure("read")
    .input(EvalSetGetInput)
    .query(({ ctx, input }) => evaluation.getEvalSet(ctx.principal, input)),
  download: scopedProcedure("read")
    .input(EvalSetGetInput)
    .query(({ ctx, input }) => evaluation.downloadEvalSet(ctx.principal, input)),
  upload: scopedProcedure("write")
    .input(EvalSetUploadInput)
    .mutation(({ ctx, input }) => evaluation.uploadEvalSet(ctx.principal, input)),
  addTurns: scopedProcedure("write")
    .input(EvalSetAddTurnsInput)
    .mutation(({ ctx, input }) => evaluation.addTurnsToEvalSet(ctx.principal, input)),
  personaSet: scopedProcedure("write")
    .input(PersonaSetInput)
    .mutation(({ ctx, input }) => evaluation.createPersonaEvalSet(ctx.principal, input)),
  overview: scopedProcedure("read")
    .input(EvaluationListInput)
    .query(({ ctx, input }) => evaluation.evaluationOverview(ctx.principal, input)),
  get: scopedProcedure("read")
    .input(EvaluationGetInput)
    .query(({ ctx, input }) => evaluation.getEvaluation(ctx.principal, input)),
  compare: scopedProcedure("read")
    .input(CompareInput)
    .query(({ ctx, input }) => evaluation.compareVersions(ctx.principal, input)),
  request: scopedProcedure("write")
    .input(RequestEvaluationInput)
    .mutation(({ ctx, input }) => evaluation.requestEvaluation(ctx.principal, input)),
  agreement: scopedProcedure("read")
    .input(AgreementInput)
    .query(({ ctx, input }) => evaluation.agreement(ctx.principal, input)),
});
