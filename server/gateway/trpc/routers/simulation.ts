// Simulated users: per-experiment controls, the global switch, and judged reward per policy version.
import { scopedProcedure, router } from "../trpc";
import * as simulation from "../../../simulation/service";
import { SimulationGlobalInput, SimulationProgressInput, SimulationUpdateInput } from "../../../simulation/schemas";

export const simulationRouter = router({
  list: scopedProcedure("read").query(({ ctx }) => simulation.listSimulations(ctx.principal)),
  update: scopedProcedure("write")
    .input(SimulationUpdateInput)
    .mutation(({ ctx, input }) => simulation.updateSimulation(ctx.principal, input)),
  setGlobal: scopedProcedure("admin")
    .input(SimulationGlobalInput)
    .mutation(({ ctx, input }) => simulation.setGlobalSimulation(ctx.principal, input)),
  progress: scopedProcedure("read")
    .input(SimulationProgressInput)
    .query(({ ctx, input }) => simulation.simulationProgress(ctx.principal, input)),
});
