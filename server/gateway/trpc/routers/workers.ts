import { listHeartbeats } from "../../../platform/workerRuntime";
import { scopedProcedure, router } from "../trpc";

export const workersRouter = router({
  list: scopedProcedure("read").query(() => listHeartbeats()),
});
