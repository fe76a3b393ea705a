// The train worker after a fault of the engine's WebAssembly runtime (server/engine/backend.ts isEngineFault): its
// heap is no longer trustworthy and every later step of every run would fail the same way, so the worker stops
// with a failure code and the supervisor (npm start) starts a fresh one, which resumes from the stored versions.
import { isEngineFault } from "../../server/engine/backend";

export function stopOnEngineFault(err: unknown, log: (message: string) => void): void {
  if (!isEngineFault(err)) return;
  log(`engine fault (${(err as Error).message}): stopping, to be restarted with a fresh engine`);
  process.exitCode = 1;
  process.kill(process.pid, "SIGTERM");
}
