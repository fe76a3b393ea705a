// Live metric points for open dashboards: one Redis subscription per web process, fanned out to every
// open SSE stream (a connection per browser tab would not scale). The subscription is opened by the
// first listener and closed with the last one.
import type { ChannelPayload } from "../platform/bus/contracts";
import { subscribe } from "../platform/bus/pubsub";
import { logger } from "../platform/log";

const log = logger("metrics-live");

export type MetricsMessage = ChannelPayload<"metrics">;
type Listener = (m: MetricsMessage) => void;

const listeners = new Set<Listener>();
let subscription: Promise<() => Promise<void>> | null = null;

function dispatch(m: MetricsMessage): void {
  for (const l of listeners) {
    try {
      l(m);
    } catch (err) {
      log.warn(`listener failed: ${(err as Error).message}`);
    }
  }
}

/** Resolves once the Redis subscription is live; the returned function removes the listener. */
export async function onMetrics(listener: Listener): Promise<() => void> {
  listeners.add(listener);
  subscription ??= subscribe("metrics", dispatch);
  try {
    await subscription;
  } catch (err) {
    listeners.delete(listener);
    subscription = null;
    throw err;
  }
  return () => {
    if (!listeners.delete(listener) || listeners.size > 0 || !subscription) return;
    const closing = subscription;
    subscription = null;
    void closing.then((unsubscribe) => unsubscribe()).catch(() => {});
  };
}

export interface LiveFilter {
  experimentId: string;
  /** Run ids to pass ("" = experiment-level points); undefined = all. */
  runIds?: readonly string[];
  names?: readonly string[];
}

/** The part of a message a stream wants, or null. */
export function filterMessage(m: MetricsMessage, f: LiveFilter): MetricsMessage | null {
  if (m.experimentId !== f.experimentId) return null;
  if (f.runIds && !f.runIds.includes(m.runId ?? "")) return null;
  const points = f.names?.length ? m.points.filter((p) => f.names!.includes(p.name)) : m.points;
  return points.length ? { ...m, points } : null;
}
