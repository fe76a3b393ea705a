// What the serve worker publishes in its heartbeat (shown per worker on the Workers page).
import type { ProxyServer } from "./server";

export function proxyWorkerStats(proxy: Pick<ProxyServer, "writer" | "sessions" | "judge">): Record<string, number> {
  const w = proxy.writer;
  return {
    sessions: proxy.sessions.size,
    bufferDepth: w.depth,
    turnsWritten: w.stats.turns,
    rejected: w.stats.rejected,
    judgeBacklog: proxy.judge.backlog,
    // Acknowledged turns without a durable copy (writer.lossy): anything but 0 means the 2xx promise was broken.
    "recording.lossy": w.lossy,
    // Events the full buffer refused; their journal lines are kept and replayed at the next start.
    bufferDropped: w.dropped,
  };
}
