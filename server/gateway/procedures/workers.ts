// Worker processes' heartbeats (what is running, and since when).
import { listHeartbeats } from "../../platform/workerRuntime";
import { procedure } from "./define";

export const workerProcedures = {
  list: procedure({
    kind: "query",
    permission: "read",
    summary: "Worker processes and their last heartbeat",
    handler: () => listHeartbeats(),
  }),
};
