import { listHeartbeats } from "../../workers/runtime";
import { scopedProcedure, router } from "../trpc";

export const workersRouter = router({
  list: scopedProcedure("read").query(() => listHeartbeats()),
});
