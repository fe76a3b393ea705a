// Every feature's procedures: a procedure's tRPC path is `<feature>.<name>` (`me` sits at the root).
// Adding an endpoint = adding a definition to its feature's file; a new feature also gets a line here.
import { apiKeyProcedures } from "./apiKeys";
import { environmentProcedures, episodeProcedures, standingLaunchProcedures, taskSetProcedures } from "./environments";
import { batchProcedures } from "./batches";
import { endUserProcedures } from "./endUsers";
import { evaluationProcedures } from "./evaluation";
import { experimentProcedures } from "./experiments";
import { labelProcedures } from "./labels";
import { fleetProcedures, metricProcedures } from "./metrics";
import { policyVersionProcedures } from "./policyVersions";
import { reviewProcedures } from "./review";
import { runOpsProcedures, runProcedures } from "./runs";
import { me } from "./session";
import { simulationProcedures } from "./simulation";
import { sessionProcedures, turnProcedures } from "./trajectories";
import { userProcedures } from "./users";
import { workerProcedures } from "./workers";

export const procedures = {
  me,
  experiments: experimentProcedures,
  runs: runProcedures,
  runOps: runOpsProcedures,
  batches: batchProcedures,
  users: userProcedures,
  apiKeys: apiKeyProcedures,
  workers: workerProcedures,
  policyVersions: policyVersionProcedures,
  sessions: sessionProcedures,
  turns: turnProcedures,
  labels: labelProcedures,
  review: reviewProcedures,
  metrics: metricProcedures,
  simulation: simulationProcedures,
  fleet: fleetProcedures,
  evaluation: evaluationProcedures,
  environments: environmentProcedures,
  taskSets: taskSetProcedures,
  episodes: episodeProcedures,
  standingLaunches: standingLaunchProcedures,
  endUsers: endUserProcedures,
};
