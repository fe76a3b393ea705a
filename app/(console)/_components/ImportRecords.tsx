"use client";
import { useState, type ChangeEvent } from "react";
import { ErrorBanner } from "../../_ui/ErrorBanner";
import { useAction } from "../../_ui/useAction";

type Report = {
  lines: number;
  sessions: number;
  turns: { created: number; skipped: number };
  judgments: { created: number; skipped: number };
  labels: number;
  orphanPrm: number;
  errors: { line: number; message: string }[];
  errorCount: number;
};

/** Uploads OpenClaw-RL record files (turn records and `_prm.jsonl` files, or our own export) into an experiment. */
export function ImportRecords({ experimentId }: { experimentId: string }) {
  const [report, setReport] = useState<Report | null>(null);
  // A raw NDJSON upload (not tRPC), through the same action helper; an import touches every list, so all refetch.
  const upload = useAction(
    {
      mutationFn: async (files: File[]): Promise<Report> => {
        // Turn files first, so PRM records in the same upload find their turns either way.
        const texts = await Promise.all(files.map((f) => f.text()));
        const res = await fetch(`/api/import/openclaw?experimentId=${encodeURIComponent(experimentId)}`, {
          method: "POST",
          headers: { "content-type": "application/x-ndjson", "x-ocrl-csrf": "1" },
          body: texts.map((t) => (t.endsWith("\n") ? t : `${t}\n`)).join(""),
        });
        const body = (await res.json()) as Report | { error?: { message?: string } };
        if (!res.ok || !("turns" in body))
          throw new Error("error" in body ? (body.error?.message ?? `HTTP ${res.status}`) : `HTTP ${res.status}`);
        return body;
      },
    },
    { invalidate: [[]] },
  );
  const busy = upload.pending;
  async function onFiles(e: ChangeEvent<HTMLInputElement>) {
    const files = [...(e.target.files ?? [])];
    e.target.value = "";
    if (!files.length) return;
    setReport(null);
    const r = await upload.run(files);
    if (r.ok) setReport(r.data);
  }
  return (
    <div className="card">
      <div className="toolbar" style={{ marginBottom: 0 }}>
        <strong>Import OpenClaw-RL records</strong>
        <span className="muted">
          turn records and <code>_prm.jsonl</code> files (or an export from here); re-importing adds nothing twice
        </span>
        <span className="spacer" />
        <label className="button">
          {busy ? "Importing…" : "Choose files"}
          <input
            type="file"
            accept=".jsonl,.json,.ndjson,.txt"
            multiple
            hidden
            disabled={busy}
            onChange={(e) => void onFiles(e)}
            aria-label="Import files"
          />
        </label>
      </div>
      <ErrorBanner error={upload.error} />
      {report && (
        <div className="notice" style={{ marginTop: 10 }} role="status">
          {report.lines} lines · {report.sessions} sessions · turns {report.turns.created} new, {report.turns.skipped}{" "}
          already there · judgments {report.judgments.created} new, {report.judgments.skipped} already there
          {report.labels ? ` · ${report.labels} labels` : ""}
          {report.orphanPrm ? ` · ${report.orphanPrm} PRM records without their turn` : ""}
          {report.errorCount > 0 && (
            <details>
              <summary>{report.errorCount} bad lines</summary>
              {report.errors.map((e) => (
                <div key={e.line} className="mono">
                  line {e.line}: {e.message}
                </div>
              ))}
            </details>
          )}
        </div>
      )}
    </div>
  );
}
