// REST routes of held-out evaluation (server/evaluation): eval sets, evaluations, comparison, agreement.
import { z } from "zod";
import * as evaluation from "../../evaluation/service";
import {
  AgreementInput, CompareInput, EvalSetAddTurnsInput, EvalSetGetInput, EvalSetListInput, EvalSetUploadInput, EvaluationGetInput,
  EvaluationListInput, PersonaSetInput, RequestEvaluationInput,
} from "../../evaluation/schemas";
import { route, type RouteDef } from "./define";

const SetParams = EvalSetGetInput.pick({ id: true });
const SetQuery = EvalSetGetInput.pick({ version: true });

export const evaluationRoutes: RouteDef[] = [
  route({ method: "GET", path: "/eval-sets", tag: "evaluation", summary: "Eval sets of an experiment with their versions", permission: "read", query: EvalSetListInput, handler: (p, i) => evaluation.listEvalSets(p, i.query) }),
  route({ method: "POST", path: "/eval-sets/upload", tag: "evaluation", summary: "Upload JSONL as the next version of a named eval set (400 names every bad line; nothing is written)", permission: "write", body: EvalSetUploadInput, successStatus: 201, handler: (p, i) => evaluation.uploadEvalSet(p, i.body) }),
  route({ method: "POST", path: "/eval-sets/add-turns", tag: "evaluation", summary: "Add recorded turns (their requests as prompts) to a named eval set, as its next version", permission: "write", body: EvalSetAddTurnsInput, successStatus: 201, handler: (p, i) => evaluation.addTurnsToEvalSet(p, i.body) }),
  route({ method: "POST", path: "/eval-sets/persona", tag: "evaluation", summary: "(Re)generate the persona eval set: the simulated personas' held-out questions", permission: "write", body: PersonaSetInput, successStatus: 201, handler: (p, i) => evaluation.createPersonaEvalSet(p, i.body) }),
  route({ method: "GET", path: "/eval-sets/:id", tag: "evaluation", summary: "One eval set version with its items (latest by default)", permission: "read", params: SetParams, query: SetQuery, handler: (p, i) => evaluation.getEvalSet(p, { ...i.params, ...i.query }) }),
  route({ method: "GET", path: "/eval-sets/:id/jsonl", tag: "evaluation", summary: "Download an eval set version as JSONL (the upload format)", permission: "read", params: SetParams, query: SetQuery, handler: (p, i) => evaluation.downloadEvalSet(p, { ...i.params, ...i.query }) }),
  route({ method: "GET", path: "/evaluations", tag: "evaluation", summary: "Per-version eval score (mean, 95% CI, cost) next to training reward; held-back candidates with reasons", permission: "read", query: EvaluationListInput, handler: (p, i) => evaluation.evaluationOverview(p, i.query) }),
  route({ method: "GET", path: "/evaluations/compare", tag: "evaluation", summary: "Two versions side by side on the same prompts: replies and grades", permission: "read", query: CompareInput, handler: (p, i) => evaluation.compareVersions(p, i.query) }),
  route({ method: "GET", path: "/evaluations/agreement", tag: "evaluation", summary: "Judge–human agreement per judge version: accuracy, Cohen's κ, confusion matrix, disagreeing turns", permission: "read", query: AgreementInput, handler: (p, i) => evaluation.agreement(p, i.query) }),
  route({ method: "POST", path: "/evaluations", tag: "evaluation", summary: "Evaluate a version (again) on the current eval set version", permission: "write", body: RequestEvaluationInput, successStatus: 202, handler: (p, i) => evaluation.requestEvaluation(p, i.body) }),
  route({ method: "GET", path: "/evaluations/:id", tag: "evaluation", summary: "One evaluation with every reply, its seed and its grade", permission: "read", params: z.object({ id: EvaluationGetInput.shape.id }), handler: (p, i) => evaluation.getEvaluation(p, i.params) }),
];
