// A worker that runs the embedded engine (serve, judge, evaluate, train) after a fault of its WebAssembly runtime
// (server/engine/backend.ts onEngineFault, whoever caught the error): the heap is no longer trustworthy and every
// later request, judgment or step would fail the same way, so the worker stops with a failure code and the
// supervisor (npm start) starts a fresh one, which picks up from what Postgres and the queues hold.
import { onEngineFault } from "../server/engine/backend";
import type { WorkerContext } from "../server/platform/workerRuntime";

export function restartOnEngineFault(ctx: WorkerContext): void {
  onEngineFault((err) => {
    ctx.log(`engine fault (${err.message}): stopping, to be restarted with a fresh engine`);
    process.exitCode = 1;
    process.kill(process.pid, "SIGTERM");
  });
}
