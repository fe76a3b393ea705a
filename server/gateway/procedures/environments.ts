// The agentic tracks: environments (sandbox provider, limits, tools), versioned task sets with their oracle
// runs, and episodes (launches of n per task, the episode viewer).
import * as environments from "../../environments/service";
import {
  EnvironmentCreateInput,
  EnvironmentGetInput,
  EnvironmentListInput,
  EpisodeGetInput,
  EpisodeLaunchInput,
  EpisodeListInput,
  EpisodeScreenshotInput,
  LaunchSummaryInput,
  OracleRunInput,
  TaskSetGetInput,
  TaskSetImportInput,
  TaskSetListInput,
} from "../../environments/schemas";
import { procedure } from "./define";
import {
  EnvironmentGetOutput,
  EnvironmentOutput,
  EnvironmentsOutput,
  EpisodeGetOutput,
  EpisodeLaunchOutput,
  EpisodeScreenshotOutput,
  EpisodesOutput,
  LaunchSummaryOutput,
  OracleRunOutput,
  TaskSetGetOutput,
  TaskSetImportOutput,
  TaskSetsOutput,
} from "./outputs/environments";

export const environmentProcedures = {
  list: procedure({
    kind: "query",
    permission: "read",
    summary: "Environments of an experiment",
    input: EnvironmentListInput,
    output: EnvironmentsOutput,
    rest: { method: "GET", path: "/environments" },
    handler: ({ principal, input }) => environments.listEnvironments(principal, input),
  }),
  get: procedure({
    kind: "query",
    permission: "read",
    summary: "One environment with its sandbox's health and its episodes by status",
    input: EnvironmentGetInput,
    output: EnvironmentGetOutput,
    rest: { method: "GET", path: "/environments/:id" },
    handler: ({ principal, input }) => environments.getEnvironment(principal, input),
  }),
  create: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Create an environment: sandbox provider, limits, network policy, the tools it offers",
    input: EnvironmentCreateInput,
    output: EnvironmentOutput,
    rest: { method: "POST", path: "/environments", status: 201 },
    handler: ({ principal, input }) => environments.createEnvironment(principal, input),
  }),
};

export const taskSetProcedures = {
  list: procedure({
    kind: "query",
    permission: "read",
    summary: "Task sets of an experiment",
    input: TaskSetListInput,
    output: TaskSetsOutput,
    rest: { method: "GET", path: "/task-sets" },
    handler: ({ principal, input }) => environments.listTaskSets(principal, input),
  }),
  get: procedure({
    kind: "query",
    permission: "read",
    summary: "One task set version (latest by default) with its tasks, split and oracle status",
    input: TaskSetGetInput,
    output: TaskSetGetOutput,
    rest: { method: "GET", path: "/task-sets/:id" },
    handler: ({ principal, input }) => environments.getTaskSet(principal, input),
  }),
  import: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Import tool-call JSONL or a Harbor archive as the next version (400 names the bad file and field)",
    input: TaskSetImportInput,
    output: TaskSetImportOutput,
    rest: { method: "POST", path: "/task-sets/import", status: 201 },
    handler: ({ principal, input }) => environments.importTaskSet(principal, input),
  }),
  oracle: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Run every task's oracle (its solution, then nothing) and record verified / flaky / impossible",
    input: OracleRunInput,
    output: OracleRunOutput,
    rest: { method: "POST", path: "/task-sets/:taskSetId/oracle" },
    handler: ({ principal, input }) => environments.runOracle(principal, input),
  }),
};

export const episodeProcedures = {
  list: procedure({
    kind: "query",
    permission: "read",
    summary: "Episodes of an experiment, newest first (by task, environment, launch or status)",
    input: EpisodeListInput,
    output: EpisodesOutput,
    rest: { method: "GET", path: "/episodes" },
    handler: ({ principal, input }) => environments.listEpisodes(principal, input),
  }),
  get: procedure({
    kind: "query",
    permission: "read",
    summary: "One episode with its steps: action, observation, recorded turn, PRM votes, step advantage",
    input: EpisodeGetInput,
    output: EpisodeGetOutput,
    rest: { method: "GET", path: "/episodes/:id" },
    handler: ({ principal, input }) => environments.getEpisode(principal, input),
  }),
  screenshot: procedure({
    kind: "query",
    permission: "read",
    summary: "One screenshot of a GUI episode (PNG, base64): 0 after reset, k after step k - 1",
    input: EpisodeScreenshotInput,
    output: EpisodeScreenshotOutput,
    rest: { method: "GET", path: "/episodes/:id/screenshots/:index" },
    handler: ({ principal, input }) => environments.getEpisodeScreenshot(principal, input),
  }),
  launchSummary: procedure({
    kind: "query",
    permission: "read",
    summary: "A launch's pass@1 and pass@k (per task and over tasks, with 95% intervals), failures, truncation",
    input: LaunchSummaryInput,
    output: LaunchSummaryOutput,
    rest: { method: "GET", path: "/episodes/launches/:launchId" },
    handler: ({ principal, input }) => environments.launchSummary(principal, input),
  }),
  launch: procedure({
    kind: "mutation",
    permission: "write",
    summary: "Queue n episodes of each task of a split (one GRPO group per task) for workers/episodes",
    input: EpisodeLaunchInput,
    output: EpisodeLaunchOutput,
    rest: { method: "POST", path: "/episodes/launch", status: 201 },
    handler: ({ principal, input }) => environments.launchEpisodes(principal, input),
  }),
};
