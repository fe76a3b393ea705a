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
  };
  metrics: ServingMetrics;
  db: () => Db;
  /** Per-key request budget; resolves to the headers to send, or throws a 429 ProxyError. */
  rateLimit: (keyId: string) => Promise<Record<string, string>>;
  maxMessages: number;
  /** Per-user adapter routing (personalization "per-user"). */
  adapters: AdapterRoutes;
}
