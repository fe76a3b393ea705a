"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../../../_lib/trpc";

/** The exact trainer command a run of this experiment would launch (secrets hidden), shown before launch. */
export function RunLaunchPreview({ experimentId }: { experimentId: string }) {
  const trpc = useTRPC();
  const preview = useQuery(trpc.runOps.launchPreview.queryOptions({ experimentId }));
  if (!preview.data) return preview.error ? <div className="form-error">{preview.error.message}</div> : null;
  const p = preview.data;
  return (
    <div className="card" data-testid="launch-preview">
      <div className="toolbar">
        <h3 style={{ margin: 0 }}>Launch preview</h3>
        <span className="badge">{p.trainerBackend}</span>
        {p.needsUserKey && (
          <span
            className={`badge ${p.userKeyConfigured ? "ACTIVE" : "FAILED"}`}
            title="Tinker bills your own account: the control plane needs your Tinker service key (TINKER_API_KEY)"
          >
            needs your own Tinker key{p.userKeyConfigured ? " (set)" : " (not set)"}
          </span>
        )}
      </div>
      {p.error && (
        <div className="form-error" role="alert">
          Cannot launch: {p.error}
        </div>
      )}
      {p.command && (
        <pre className="mono" data-testid="launch-command">
          {p.command}
        </pre>
      )}
      {p.notes.length > 0 && (
        <ul className="muted" style={{ margin: "8px 0 0", paddingLeft: 18 }}>
          {p.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
