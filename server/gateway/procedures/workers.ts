// Worker processes' heartbeats (what is running, and since when).
import { listHeartbeats } from "../../platform/workerRuntime";
import { procedure } from "./define";
import { WorkersListOutput } from "./outputs/workers";

export const workerProcedures = {
  list: procedure({
    kind: "query",
    permission: "read",
    summary: "Worker processes and their last heartbeat",
    output: WorkersListOutput,
    handler: () => listHeartbeats(),
  }),
};
