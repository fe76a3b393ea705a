"use client";
// Two versions on the same prompts: for each item, each version's replies (same seeds) and grades side by
// side — the before/after view of a run.
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../_lib/trpc";

const text = (m: unknown) => {
  const c = (m as { content?: unknown }).content;
  return typeof c === "string" ? c : JSON.stringify(c);
};

export function Comparison({ experimentId, a, b }: { experimentId: string; a: number; b: number }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.evaluation.compare.queryOptions({ experimentId, a, b }), refetchInterval: 10_000 });
  if (q.error) return <div className="form-error">{q.error.message}</div>;
  const d = q.data;
  if (!d) return <div className="muted">Loading…</div>;
  const mean = (x: number | null) => (x === null ? "—" : x.toFixed(2));
  return (
    <table className="list" data-testid="eval-compare">
      <thead>
        <tr>
          <th>Prompt</th>
          <th>
            v{d.a.version} · {mean(d.a.mean)}
          </th>
          <th>
            v{d.b.version} · {mean(d.b.mean)}
          </th>
        </tr>
      </thead>
      <tbody>
        {d.items.map((it) => (
          <tr key={it.key}>
            <td style={{ maxWidth: 260 }}>
              <div className="muted" style={{ fontSize: 11 }}>
                {it.key}
                {it.persona ? ` · ${it.persona}` : ""}
              </div>
              {text((it.messages as unknown[]).at(-1))}
            </td>
            {[it.a, it.b].map((side, i) => (
              <td key={i}>
                {side.replies.map((r) => (
                  <div key={r.sample} style={{ marginBottom: 6 }}>
                    <span className={`badge ${r.score >= 0.5 ? "ACTIVE" : "FAILED"}`}>{r.score.toFixed(2)}</span>
                    <pre style={{ whiteSpace: "pre-wrap", margin: "4px 0 0", fontSize: 12 }}>{r.reply}</pre>
                  </div>
                ))}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
