"use client";
// One episode: how it ended (outcome, verifier output, truncation, error) and its step timeline — each step's
// action (the reply and its tool calls, linked to the recorded turn; a GUI step's action with the screenshot
// after it; a harness's run of the stock agent), the observations fed back, the PRM score and the step
// advantage its group gave it. Live while it runs.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { useTRPC } from "../../../_lib/trpc";

// A step is one of three shapes, by its runner: our agent loop (a reply and tool calls), a GUI pool (one
// action and the screenshot after it), a harness (the stock agent's whole run).
interface Action {
  content?: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
  action?: string;
  harness?: string;
  command?: string;
}
interface Observation {
  results?: {
    toolCallId: string;
    content: string;
    exitCode?: number | null;
    timedOut?: boolean;
    truncated?: boolean;
  }[];
  screenshot?: number | null;
  text?: string;
  exitCode?: number | null;
  stdout?: string;
  policyCalls?: number;
  refusedCalls?: number;
}

/** A stored GUI screenshot, fetched when shown (they are large). */
function Screenshot({ episodeId, index, label }: { episodeId: string; index: number; label: string }) {
  const trpc = useTRPC();
  const shot = useQuery({ ...trpc.episodes.screenshot.queryOptions({ id: episodeId, index }), staleTime: Infinity });
  if (shot.error) return <div className="form-error">{shot.error.message}</div>;
  if (!shot.data) return <div className="muted">Loading screenshot {index}…</div>;
  return (
    // eslint-disable-next-line @next/next/no-img-element -- a data URL: nothing for next/image to optimise
    <img
      data-testid="episode-screenshot"
      alt={label}
      src={`data:${shot.data.mimeType};base64,${shot.data.base64}`}
      style={{ maxWidth: "100%", maxHeight: 360, border: "1px solid var(--border, #ccc)", display: "block" }}
    />
  );
}

/** Green for a positive advantage, red for a negative one, stronger with its size. */
function advantageColour(a: number | null): string | undefined {
  if (a === null) return undefined;
  const alpha = Math.min(Math.abs(a), 2) / 4;
  return a >= 0 ? `rgba(34, 160, 90, ${alpha})` : `rgba(200, 50, 50, ${alpha})`;
}

export default function EpisodePage() {
  const { id } = useParams<{ id: string }>();
  const trpc = useTRPC();
  const ep = useQuery({
    ...trpc.episodes.get.queryOptions({ id }),
    refetchInterval: (q) => (q.state.data?.status === "QUEUED" || q.state.data?.status === "RUNNING" ? 2000 : false),
  });
  const d = ep.data;
  if (ep.error) return <div className="form-error">{ep.error.message}</div>;
  if (!d) return <div className="muted">Loading…</div>;
  const detail = (d.outcomeDetail ?? {}) as Record<string, unknown>;
  return (
    <>
      <h1>Episode {d.id}</h1>
      <p>
        <Link href={`/episodes?experimentId=${d.experimentId}`}>← Episodes</Link>
      </p>
      <div className="card" data-testid="episode-summary">
        <dl className="kv">
          <dt>Task</dt>
          <dd>
            {d.task.key} ({d.task.kind}, {d.task.split})
          </dd>
          <dt>Status</dt>
          <dd data-testid="episode-status">{d.status.toLowerCase()}</dd>
          <dt>Outcome</dt>
          <dd data-testid="episode-outcome">{d.outcome ?? "—"}</dd>
          <dt>Group</dt>
          <dd>
            {d.groupKey ?? "—"}
            {d.sampleIndex !== null ? ` #${d.sampleIndex}` : ""} · {d.estimator}
          </dd>
          <dt>Steps</dt>
          <dd>
            {d.steps.length} of at most {d.maxSteps}
            {d.truncation ? ` · truncated (${d.truncation})` : ""}
          </dd>
          <dt>Attempts</dt>
          <dd>{d.attempts}</dd>
          <dt>Sandbox lease</dt>
          <dd>{d.leaseId ? `${d.leaseId} (${d.leaseProvider})` : "—"}</dd>
          {d.error && (
            <>
              <dt>Error</dt>
              <dd className="form-error">{d.error}</dd>
            </>
          )}
        </dl>
        {d.task.kind === "toolcall" && detail.expected !== undefined && (
          <p className="muted">
            Expected {String(detail.expected)} ({String(detail.verifier)} verifier)
          </p>
        )}
        {d.task.kind === "terminal" && typeof detail.stdout === "string" && (
          <details>
            <summary>Verifier output (exit code {String(detail.exitCode)})</summary>
            <pre>{detail.stdout}</pre>
            {typeof detail.stderr === "string" && detail.stderr && <pre>{detail.stderr}</pre>}
          </details>
        )}
      </div>
      <div className="card" data-testid="episode-steps">
        <h2 style={{ marginTop: 0 }}>Steps</h2>
        {d.screenshots.some((sh) => sh.index === 0) && (
          <figure style={{ margin: "0 0 12px" }}>
            <figcaption className="muted">The desktop after reset</figcaption>
            <Screenshot episodeId={d.id} index={0} label="The desktop after reset" />
          </figure>
        )}
        {d.steps.length === 0 && <div className="empty">No step yet.</div>}
        <ol style={{ paddingLeft: 20 }}>
          {d.steps.map((s) => {
            const action = s.action as unknown as Action;
            const obs = s.observation as unknown as Observation;
            return (
              <li key={s.id} data-testid="episode-step" style={{ marginBottom: 12 }}>
                <div style={{ background: advantageColour(s.advantage), padding: 4, borderRadius: 4 }}>
                  <strong>Step {s.index}</strong>{" "}
                  <span className="muted">
                    advantage {s.advantage === null ? "—" : s.advantage.toFixed(3)}
                    {s.prmScore !== null ? ` · PRM ${s.prmScore.toFixed(2)}` : ""}
                    {s.turnId && (
                      <>
                        {" · "}
                        <Link href={`/trajectories/${s.turnId}`}>recorded turn</Link>
                      </>
                    )}
                  </span>
                  {action.content && <pre style={{ whiteSpace: "pre-wrap" }}>{action.content}</pre>}
                  {action.action !== undefined && <pre style={{ whiteSpace: "pre-wrap" }}>{action.action}</pre>}
                  {typeof obs.screenshot === "number" && d.screenshots.some((sh) => sh.index === obs.screenshot) && (
                    <Screenshot episodeId={d.id} index={obs.screenshot} label={`The desktop after step ${s.index}`} />
                  )}
                  {action.harness !== undefined && (
                    <div>
                      <code>{action.command}</code>
                      <p className="muted">
                        harness {action.harness} · exit code {String(obs.exitCode)} · {obs.policyCalls ?? 0} policy
                        call(s){obs.refusedCalls ? `, ${obs.refusedCalls} refused over the budget` : ""}
                      </p>
                      {obs.stdout && <pre style={{ whiteSpace: "pre-wrap" }}>{obs.stdout}</pre>}
                    </div>
                  )}
                  {(action.toolCalls ?? []).map((c) => (
                    <div key={c.id}>
                      <code>
                        {c.name}({c.arguments})
                      </code>
                      {(obs.results ?? [])
                        .filter((r) => r.toolCallId === c.id)
                        .map((r) => (
                          <pre key={r.toolCallId} className="muted" style={{ whiteSpace: "pre-wrap" }}>
                            {r.content}
                          </pre>
                        ))}
                    </div>
                  ))}
                </div>
              </li>
            );
          })}
        </ol>
      </div>
    </>
  );
}
