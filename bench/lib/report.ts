// The recovery report printed by the fault suite: per fault, how long the outage lasted, how long the
// pipeline took to make progress again after the restore, and what the traffic saw meanwhile.
import type { InvariantReport } from "./invariants";

export interface Recovery {
  fault: string;
  /** When the fault was injected, when the component was back (restarted / restored), when work resumed. */
  at: number;
  restored: number;
  recoveredAt: number;
  /** Requests that started during the outage, and how many of them still got a 2xx. */
  requests: { sent: number; ok: number };
}

const s = (ms: number) => `${(Math.max(0, ms) / 1000).toFixed(1)} s`;

export function table(header: string[], rows: string[][]): string {
  const width = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(width[i]!) : c.padStart(width[i]!))).join("  ");
  return [line(header), width.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export function formatRecovery(rs: Recovery[], requests: number, counts: InvariantReport["counts"]): string {
  const rows = rs.map((r) => [
    r.fault,
    s(r.restored - r.at),
    s(r.recoveredAt - r.restored),
    s(r.recoveredAt - r.at),
    String(r.requests.sent),
    String(r.requests.ok),
  ]);
  return [
    "fault recovery report",
    table(["fault", "outage", "recover after restore", "total", "requests during", "2xx during"], rows),
    `traffic: ${requests} requests, ${counts.okRequests} answered 2xx; ${counts.turns} turns, ${counts.readyTurns} ready, ${counts.judgments} judgments; ` +
      `${counts.samples} samples, ${counts.trainedSamples} trained in ${counts.steps} steps; ${counts.versions} policy versions`,
  ].join("\n");
}
