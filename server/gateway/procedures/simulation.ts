// Simulated users: per-experiment controls, the global switch, and judged reward per policy version.
import * as simulation from "../../simulation/service";
import { SimulationGlobalInput, SimulationProgressInput, SimulationUpdateInput } from "../../simulation/schemas";
import { procedure } from "./define";
import {
  SimulationListOutput,
  SimulationProgressOutput,
  SimulationSetGlobalOutput,
  SimulationUpdateOutput,
} from "./outputs/simulation";

export const simulationProcedures = {
  list: procedure({
    kind: "query",
    permission: "read",
    summary: "Simulated users of every active experiment: settings, live stats, and the global switch",
    rest: { method: "GET", path: "/simulation" },
    output: SimulationListOutput,
    handler: ({ principal }) => simulation.listSimulations(principal),
  }),
  update: procedure({
    kind: "mutation",
    permission: "write",
    summary:
      "Start/stop an experiment's simulated users or change their rate, concurrency, personas, seed or turn limit",
    input: SimulationUpdateInput,
    rest: { method: "PATCH", path: "/simulation/experiments/:experimentId" },
    output: SimulationUpdateOutput,
    handler: ({ principal, input }) => simulation.updateSimulation(principal, input),
  }),
  progress: procedure({
    kind: "query",
    permission: "read",
    summary: "Judged reward per policy version (mean judge score of the main turns each version served)",
    input: SimulationProgressInput,
    rest: { method: "GET", path: "/simulation/experiments/:experimentId/progress" },
    output: SimulationProgressOutput,
    handler: ({ principal, input }) => simulation.simulationProgress(principal, input),
  }),
  setGlobal: procedure({
    kind: "mutation",
    permission: "admin",
    summary: "Turn all simulated traffic on or off (SIMULATE=0 in the workers' environment wins)",
    input: SimulationGlobalInput,
    rest: { method: "POST", path: "/simulation/global" },
    output: SimulationSetGlobalOutput,
    handler: ({ principal, input }) => simulation.setGlobalSimulation(principal, input),
  }),
};
