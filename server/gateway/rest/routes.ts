// Every REST route under /api/v1: one table, used by the dispatcher, the OpenAPI document and the
// access-control tests. Inputs reuse the same zod schemas as tRPC; handlers call the same services.
import { z } from "zod";
import * as experiments from "../../experiments/service";
import * as runs from "../../runs/service";
import * as users from "../../users/service";
import * as apiKeys from "../../apiKeys/service";
import * as trajectories from "../../trajectories/service";
import {
  ConfigDiffInput,
  ExperimentCloneInput,
  ExperimentCreateInput,
  ExperimentListInput,
  ExperimentUpdateInput,
  IdSchema,
  RunActionInput,
  RunListInput,
  RunStartInput,
} from "../../experiments/schemas";
import { ApiKeyCreateInput, ApiKeyListInput, UserCreateInput, UserListInput, UserUpdateInput } from "../../users/schemas";
import * as review from "../../review/service";
import * as metrics from "../../metrics/service";
import { fleetOverview } from "../../metrics/fleet";
import { AuditListInput, ConversationInput, LabelCreateInput, LabelListInput, SessionGetParams, SessionGetQuery, SessionListInput, TurnListInput } from "../../trajectories/schemas";
import { MetricsCatalogInput, MetricsQueryInput, MetricsSeriesInput } from "../../metrics/schemas";
import { QueueAddTurnsInput, QueueCreateInput, QueueListInput, QueueUpdateInput, SubmitInput } from "../../review/schemas";
import { QueryBool } from "../../trajectories/schemas";
import { route, type RouteDef } from "./define";
import { batchRoutes } from "./leaseRoutes";
import { evaluationRoutes } from "./evaluationRoutes";
import * as policyVersions from "../../policyVersions/service";
import { PolicyVersionGetInput, PolicyVersionListInput, PromoteInput, RollbackInput } from "../../policyVersions/schemas";
import * as simulation from "../../simulation/service";
import { SimulationGlobalInput, SimulationProgressInput, SimulationUpdateInput } from "../../simulation/schemas";

const ById = z.object({ id: IdSchema });

export const routes: RouteDef[] = [
  route({ method: "GET", path: "/experiments", tag: "experiments", summary: "List experiments", permission: "read", query: ExperimentListInput, handler: (p, i) => experiments.listExperiments(p, i.query) }),
  route({ method: "POST", path: "/experiments", tag: "experiments", summary: "Create an experiment", permission: "write", body: ExperimentCreateInput, successStatus: 201, handler: (p, i) => experiments.createExperiment(p, i.body) }),
  route({ method: "GET", path: "/experiments/:id", tag: "experiments", summary: "Get an experiment by id or slug", permission: "read", params: ById, handler: (p, i) => experiments.getExperiment(p, i.params.id) }),
  route({ method: "PATCH", path: "/experiments/:id", tag: "experiments", summary: "Edit an experiment", permission: "write", params: ById, body: ExperimentUpdateInput.omit({ id: true }), handler: (p, i) => experiments.updateExperiment(p, { ...i.body, id: i.params.id }) }),
  route({ method: "DELETE", path: "/experiments/:id", tag: "experiments", summary: "Delete an experiment that holds no data (else 409: archive it)", permission: "write", params: ById, handler: (p, i) => experiments.deleteExperiment(p, i.params.id) }),
  route({ method: "POST", path: "/experiments/:id/clone", tag: "experiments", summary: "Clone an experiment", permission: "write", params: ById, body: ExperimentCloneInput.omit({ id: true }), successStatus: 201, handler: (p, i) => experiments.cloneExperiment(p, { ...i.body, id: i.params.id }) }),
  route({ method: "POST", path: "/experiments/:id/archive", tag: "experiments", summary: "Archive (or unarchive) an experiment", permission: "write", params: ById, body: z.object({ archived: z.boolean().default(true) }), handler: (p, i) => experiments.archiveExperiment(p, i.params.id, i.body.archived) }),
  route({ method: "GET", path: "/config-diff", tag: "experiments", summary: "Config diff between two experiments or runs", permission: "read", query: ConfigDiffInput, handler: (p, i) => experiments.diffExperimentsOrRuns(p, i.query) }),

  route({ method: "GET", path: "/runs", tag: "runs", summary: "List runs", permission: "read", query: RunListInput, handler: (p, i) => runs.listRuns(p, i.query) }),
  route({ method: "POST", path: "/runs", tag: "runs", summary: "Start a run of an experiment", permission: "write", body: RunStartInput, successStatus: 201, handler: (p, i) => runs.startRun(p, i.body.experimentId) }),
  route({ method: "GET", path: "/runs/:id", tag: "runs", summary: "Get a run", permission: "read", params: ById, handler: (p, i) => runs.getRun(p, i.params.id) }),
  route({ method: "POST", path: "/runs/:id/actions", tag: "runs", summary: "Stop, pause or resume a run", permission: "write", params: ById, body: RunActionInput.omit({ id: true }), handler: (p, i) => runs.actOnRun(p, { ...i.body, id: i.params.id }) }),

  route({ method: "GET", path: "/sessions", tag: "trajectories", summary: "List recorded sessions", permission: "read", query: SessionListInput, handler: (p, i) => trajectories.listSessions(p, i.query) }),
  route({ method: "GET", path: "/sessions/:id", tag: "trajectories", summary: "A session with its turns, by our id or the client's session id (experimentId picks one where several experiments use it)", permission: "read", params: SessionGetParams, query: SessionGetQuery, handler: (p, i) => trajectories.getSession(p, i.params.id, i.query.experimentId) }),
  route({ method: "GET", path: "/turns", tag: "trajectories", summary: "List turns", permission: "read", query: TurnListInput, handler: (p, i) => trajectories.listTurns(p, i.query) }),
  route({ method: "GET", path: "/turns/:id", tag: "trajectories", summary: "A turn with its full request, judgments, votes and labels", permission: "read", params: ById, handler: (p, i) => trajectories.getTurn(p, i.params.id) }),
  route({ method: "GET", path: "/labels", tag: "labels", summary: "List labels", permission: "read", query: LabelListInput, handler: (p, i) => trajectories.listLabels(p, i.query) }),
  route({ method: "POST", path: "/labels", tag: "labels", summary: "Relabel a turn (reviewer label; feeds training)", permission: "review", body: LabelCreateInput, successStatus: 201, handler: (p, i) => trajectories.createLabel(p, i.body) }),
  route({ method: "GET", path: "/sessions/:id/conversation", tag: "trajectories", summary: "A page of a session's turns with messages, judgments, labels and training use", permission: "read", params: ById, query: ConversationInput.omit({ sessionId: true }), handler: (p, i) => trajectories.getConversation(p, { ...i.query, sessionId: i.params.id }) }),
  route({ method: "GET", path: "/audit/relabels", tag: "labels", summary: "Audit log of relabels (effective training label before and after)", permission: "read", query: AuditListInput, handler: (p, i) => trajectories.listTurnAudit(p, i.query) }),
  route({ method: "GET", path: "/metrics", tag: "metrics", summary: "Metric points of a run or experiment", permission: "read", query: MetricsQueryInput, handler: (p, i) => metrics.queryMetricPoints(p, i.query) }),
  route({ method: "GET", path: "/metrics/series", tag: "metrics", summary: "Series bucketed to at most maxPoints points each (min/max/last/mean per bucket); x by step or time", permission: "read", query: MetricsSeriesInput, handler: (p, i) => metrics.querySeries(p, i.query) }),
  route({ method: "GET", path: "/metrics/catalog", tag: "metrics", summary: "The metric series of an experiment, with counts and latest values", permission: "read", query: MetricsCatalogInput, handler: (p, i) => metrics.metricCatalog(p, i.query) }),
  route({ method: "GET", path: "/fleet", tag: "metrics", summary: "Queue depths and lag, judge backlog, and each live run's training backlog and GPU plan", permission: "read", handler: (p) => fleetOverview(p) }),

  route({ method: "GET", path: "/review/queues", tag: "review", summary: "List review queues with their pending / done / disputed counts", permission: "read", query: QueueListInput.extend({ includeArchived: QueryBool.default(false) }), handler: (p, i) => review.listQueues(p, i.query) }),
  route({ method: "POST", path: "/review/queues", tag: "review", summary: "Create a review queue (turn filter, assignees, reviewers per item, lock TTL)", permission: "write", body: QueueCreateInput, successStatus: 201, handler: (p, i) => review.createQueue(p, i.body) }),
  route({ method: "GET", path: "/review/queues/:id", tag: "review", summary: "A review queue", permission: "read", params: ById, handler: (p, i) => review.getQueue(p, i.params.id) }),
  route({ method: "PATCH", path: "/review/queues/:id", tag: "review", summary: "Edit a review queue (assignees, reviewers per item, archive)", permission: "write", params: ById, body: QueueUpdateInput.omit({ id: true }), handler: (p, i) => review.updateQueue(p, { ...i.body, id: i.params.id }) }),
  route({ method: "POST", path: "/review/queues/:id/turns", tag: "review", summary: "Add turns to a review queue", permission: "review", params: ById, body: QueueAddTurnsInput.omit({ queueId: true }), handler: (p, i) => review.addTurns(p, { ...i.body, queueId: i.params.id }) }),
  route({ method: "POST", path: "/review/queues/:id/next", tag: "review", summary: "Fetch and lock the next item (disputed first, skipping what you have seen); null when none is left", permission: "review", params: ById, handler: (p, i) => review.fetchNext(p, i.params.id) }),
  route({ method: "POST", path: "/review/items/:id/submit", tag: "review", summary: "Accept, fix & accept, or reject the item (writes an audited reviewer label)", permission: "review", params: ById, body: SubmitInput.omit({ itemId: true }), handler: (p, i) => review.submitReview(p, { ...i.body, itemId: i.params.id }) }),
  route({ method: "POST", path: "/review/items/:id/skip", tag: "review", summary: "Skip an item (not offered to you again) and release its lock", permission: "review", params: ById, handler: (p, i) => review.skipItem(p, i.params.id) }),
  route({ method: "POST", path: "/review/items/:id/release", tag: "review", summary: "Release your lock on an item", permission: "review", params: ById, handler: (p, i) => review.releaseItem(p, i.params.id) }),

  route({ method: "GET", path: "/users", tag: "admin", summary: "List users", permission: "admin", query: UserListInput, handler: (p, i) => users.listUsers(p, i.query) }),
  route({ method: "POST", path: "/users", tag: "admin", summary: "Create a user", permission: "admin", body: UserCreateInput, successStatus: 201, handler: (p, i) => users.createUser(p, i.body) }),
  route({ method: "PATCH", path: "/users/:id", tag: "admin", summary: "Change a user's role, name, password or disabled flag", permission: "admin", params: ById, body: UserUpdateInput.omit({ id: true }), handler: (p, i) => users.updateUser(p, { ...i.body, id: i.params.id }) }),
  route({ method: "GET", path: "/api-keys", tag: "admin", summary: "List API keys (never their secrets)", permission: "admin", query: ApiKeyListInput, handler: (p, i) => apiKeys.listApiKeys(p, i.query) }),
  route({ method: "POST", path: "/api-keys", tag: "admin", summary: "Create an API key (the secret is returned once)", permission: "admin", body: ApiKeyCreateInput, successStatus: 201, handler: (p, i) => apiKeys.createApiKey(p, i.body) }),
  route({ method: "DELETE", path: "/api-keys/:id", tag: "admin", summary: "Revoke an API key", permission: "admin", params: ById, handler: (p, i) => apiKeys.revokeApiKey(p, i.params.id) }),

  route({ method: "GET", path: "/policy-versions", tag: "policy-versions", summary: "Policy versions of an experiment (newest first) and the one served", permission: "read", query: PolicyVersionListInput, handler: (p, i) => policyVersions.listPolicyVersions(p, i.query) }),
  route({ method: "GET", path: "/policy-versions/:version", tag: "policy-versions", summary: "One policy version with the training step that made it", permission: "read", params: PolicyVersionGetInput.pick({ version: true }), query: PolicyVersionGetInput.pick({ experimentId: true }), handler: (p, i) => policyVersions.getPolicyVersion(p, { ...i.query, ...i.params }) }),
  route({ method: "POST", path: "/policy-versions/promote", tag: "policy-versions", summary: "Serve a policy version (the previous one is retired); proxies switch at once", permission: "write", body: PromoteInput, handler: (p, i) => policyVersions.promotePolicyVersion(p, i.body) }),
  route({ method: "POST", path: "/policy-versions/rollback", tag: "policy-versions", summary: "Roll back the served version (to its parent by default, 0 = base checkpoint)", permission: "write", body: RollbackInput, handler: (p, i) => policyVersions.rollbackPolicyVersion(p, i.body) }),

  route({ method: "GET", path: "/simulation", tag: "simulation", summary: "Simulated users of every active experiment: settings, live stats, and the global switch", permission: "read", handler: (p) => simulation.listSimulations(p) }),
  route({ method: "PATCH", path: "/simulation/experiments/:id", tag: "simulation", summary: "Start/stop an experiment's simulated users or change their rate, concurrency, personas, seed or turn limit", permission: "write", params: ById, body: SimulationUpdateInput.omit({ experimentId: true }), handler: (p, i) => simulation.updateSimulation(p, { ...i.body, experimentId: i.params.id }) }),
  route({ method: "GET", path: "/simulation/experiments/:id/progress", tag: "simulation", summary: "Judged reward per policy version (mean judge score of the main turns each version served)", permission: "read", params: ById, query: SimulationProgressInput.omit({ experimentId: true }), handler: (p, i) => simulation.simulationProgress(p, { ...i.query, experimentId: i.params.id }) }),
  route({ method: "POST", path: "/simulation/global", tag: "simulation", summary: "Turn all simulated traffic on or off (SIMULATE=0 in the workers' environment wins)", permission: "admin", body: SimulationGlobalInput, handler: (p, i) => simulation.setGlobalSimulation(p, i.body) }),

  ...batchRoutes,
  ...evaluationRoutes,
];
