import type { AdapterRoutes } from "../adapterRoutes";
import type { ProxyAuth } from "../auth";
import type { ExperimentDirectory } from "../experiments";
import type { ServingMetrics } from "../metrics";
import type { RecordEvent } from "../recorder/events";
import type { SessionOrder } from "../sessionOrder";
import type { SessionTable } from "../sessions";
import type { TurnPlanner } from "../turns";
import type { Db } from "../../platform/db/client";

/** What the request handlers use; assembled by server.ts. */
export interface ProxyDeps {
  maxBodyBytes: number;
  auth: ProxyAuth;
  experiments: ExperimentDirectory;
  planner: TurnPlanner;
  sessions: SessionTable;
  /** The sessions' shared order (Redis); null without Redis. */
  order: SessionOrder | null;
  writer: {
    push(e: RecordEvent): void;
    readonly depth: number;
    readonly degraded: boolean;
    readonly bufferFull: boolean;
    readonly journalFailing: boolean;
  };
  /** PROXY_BODY_IDLE_MS: the longest pause while a request body arrives. */
  bodyIdleMs: number;
  /** Per-key in-flight requests; `acquire` throws a 429 ProxyError past PROXY_MAX_INFLIGHT_PER_KEY. */
  inflight: { acquire(keyId: string): () => void };
  /** PROXY_RECORDING_FAIL_CLOSED: refuse requests (503) while a turn could not be kept. */
  recordingFailClosed: boolean;
  metrics: ServingMetrics;
  db: () => Db;
  /** Per-key request budget; resolves to the headers to send, or throws a 429 ProxyError. */
  rateLimit: (keyId: string) => Promise<Record<string, string>>;
  maxMessages: number;
  /** Per-user adapter routing (personalization "per-user"). */
  adapters: AdapterRoutes;
}

/**
 * The accept point: with fail-closed recording, a request whose turn could not be kept is refused before the
 * upstream serves it (503 recording_unavailable with Retry-After), so no 2xx is ever answered for a lost turn.
 */
export function recordingProblem(deps: ProxyDeps): string | null {
  if (!deps.recordingFailClosed) return null;
  if (deps.writer.bufferFull) return "the disk buffer is full while the database is unreachable";
  if (deps.writer.journalFailing) return "the write-ahead journal cannot be written";
  return null;
}
