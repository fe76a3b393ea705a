import { authedProcedure, router } from "./trpc";
import { experimentsRouter } from "./routers/experiments";
import { runsRouter } from "./routers/runs";
import { apiKeysRouter, usersRouter } from "./routers/admin";
import { permissions } from "../../access/principal";
import { workersRouter } from "./routers/workers";
import { policyVersionsRouter } from "./routers/policyVersions";
import { labelsRouter, sessionsRouter, turnsRouter } from "./routers/trajectories";
import { reviewRouter } from "./routers/review";
import { metricsRouter } from "./routers/metrics";
import { runOpsRouter } from "./routers/runOps";
import { simulationRouter } from "./routers/simulation";
import { fleetRouter } from "./routers/fleet";
import { evaluationRouter } from "./routers/evaluation";

export const appRouter = router({
  me: authedProcedure.query(({ ctx }) => ({
    principal:
      ctx.principal.kind === "user"
        ? { kind: "user" as const, email: ctx.principal.email, role: ctx.principal.role }
        : { kind: "apiKey" as const, prefix: ctx.principal.prefix },
    permissions: [...permissions(ctx.principal)],
  })),
  experiments: experimentsRouter,
  runs: runsRouter,
  users: usersRouter,
  apiKeys: apiKeysRouter,
  workers: workersRouter,
  policyVersions: policyVersionsRouter,
  sessions: sessionsRouter,
  turns: turnsRouter,
  labels: labelsRouter,
  review: reviewRouter,
  metrics: metricsRouter,
  runOps: runOpsRouter,
  simulation: simulationRouter,
  fleet: fleetRouter,
  evaluation: evaluationRouter,
});

export type AppRouter = typeof appRouter;
