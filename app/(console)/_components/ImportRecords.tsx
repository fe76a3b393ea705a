"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useState, type ChangeEvent } from "react";

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
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function onFiles(e: ChangeEvent<HTMLInputElement>) {
    const files = [...(e.target.files ?? [])];
    e.target.value = "";
    if (!files.length) return;
    setBusy(true);
    setError(null);
    setReport(null);
    try {
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
      setReport(body);
      await qc.invalidateQueries();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
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
      {error && (
        <div className="form-error" style={{ marginTop: 10 }}>
          {error}
        </div>
      )}
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
